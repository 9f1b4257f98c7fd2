"""R-U maps: analytic formulas, decisions on a map, the simulation engine, attacks, utility and Pareto choice."""
