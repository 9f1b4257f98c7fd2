"""Tables: sensitivity rules, the dominance rule's flaw, bounds and entropy risk of suppressed cells."""
