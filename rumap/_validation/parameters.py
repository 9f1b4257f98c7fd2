"""The table :data:`PARAMETERS`: the allowed range of every named parameter of the public API, by concept."""

from __future__ import annotations

from rumap._validation.base import Interval

__all__ = ["PARAMETERS", "MAX_RECORDS", "MAX_SEED"]

#: The most records any parameter counts (a file, a group size, a subsample, a chunk): no file holds more.
MAX_RECORDS = 10**12
#: The largest seed: 64 bits.
MAX_SEED = 2**64 - 1

#: The allowed range of every named parameter of the public API.
PARAMETERS: dict[str, Interval] = {
    # at least 2: the analytic setting's variance is a sample's, S² (ddof = 1); "records" counts any records
    "n": Interval("int", 2, None, "left", "number of records of the analytic setting (its variance S² needs 2)", most=MAX_RECORDS),
    "sigma2": Interval("float", 0.0, None, "neither", "variance of the original data"),
    "mu": Interval("float", None, None, "neither", "mean of the original data"),
    "tau": Interval("float", None, None, "neither", "the target value"),
    "lambda2": Interval("float", 0.0, None, "left", "variance of the additive noise"),
    "p": Interval("float", 0.0, 1.0, "neither", "percentile as a fraction"),
    "max_risk": Interval("float", 0.0, None, "neither", "maximum tolerable risk"),
    "observed_extreme": Interval("float", None, None, "neither", "observed sample extreme"),
    "grid_num": Interval("int", 1, 1_000_000, "both", "number of grid values"),
    "work_limit": Interval("float", 1.0, 1e18, "both", "a work limit (elementary steps)"),
    "shape": Interval("float", 0.0, None, "neither", "shape parameter of the data's distribution family"),
    "tolerable_error": Interval("float", 0.0, None, "neither",
                                "the snooper's tolerable average error, in data units (R_max = 1 / error²)"),
    # tables (rumap.tables.rules, rumap.tables.dominance, rumap.tables.bounds)
    "dominance_n": Interval("int", 1, None, "left", "number of largest contributions in the (n,k)-dominance rule", slider=(1, 10, 1), most=MAX_RECORDS),
    "dominance_k": Interval("float", 0.0, 1.0, "right", "fraction of the cell total in the (n,k)-dominance rule",
                            slider=(0.05, 0.99, 0.001)),
    "rule_percent": Interval("float", 0.0, 100.0, "right",
                             "an accuracy in percent of the p% and pq rules: p, and the pq rule's prior accuracy q",
                             slider=(1.0, 100.0, 1.0)),
    "threshold": Interval("int", 1, None, "left", "least number of contributors of a non-sensitive cell", most=MAX_RECORDS),
    "contributions_n": Interval("int", 2, 100_000, "both", "number N of contributions to a cell",
                                slider=(2, 60, 1)),
    # the slider's top is the table's own scale: a page narrows it to the cells' magnitude
    "rounding_base": Interval("float", 0.0, None, "neither", "rounding base b", slider=(2.0, 1e150, 1.0)),
    "ckm_max_perturbation": Interval("int", 1, 49, "both", "largest perturbation D of the cell key method"),
    "ckm_js": Interval("int", 0, 1000, "both", "the largest count js never published by the cell key method"),
    "swaprate": Interval("float", 0.0, 1.0, "both", "the share of households swapped"),
    "resolution": Interval("float", 0.0, None, "neither", "smallest step between cell values"),
    "own_contribution": Interval("float", 0.0, None, "left", "the insider's own contribution to the cell"),
    "time_limit": Interval("float", 0.0, 86400.0, "right", "time limit in seconds"),
    "protection": Interval("float", 0.0, 100.0, "right",
                           "protection level P: percent of each primary's value, in both directions"),
    # a bound becomes a released value: within the data's largest magnitude (rumap._validation.MAX_MAGNITUDE)
    "truncation": Interval("float", -1e150, 1e150, "both", "a lower or upper bound of the masked values"),
    "unequal_threshold": Interval("float", None, None, "neither",
                                  "threshold above (or below) which records are sensitive"),
    "unequal_factor": Interval("float", 0.0, None, "neither", "noise variance factor for sensitive records"),
    "replicates": Interval("int", 1, 10_000_000, "both", "Monte-Carlo replicates per parameter value"),
    "seed": Interval("int", 0, None, "both", "random seed", most=MAX_SEED),
    "privacy_loss": Interval("float", 0.0, 1000.0, "right", "privacy loss of a release: epsilon (DP), or rho (zero-concentrated DP)", slider=(0.05, 20.0, 0.05)),
    "sensitivity": Interval("float", 0.0, 1e150, "right", "sensitivity: the most one record changes a released value"),
    "subsample": Interval("int", 2, None, "both", "records of each subsample of an empirical map", most=MAX_RECORDS),
    "subsamples": Interval("int", 2, 1000, "both", "independent subsamples of an empirical map"),
    "chunk_size": Interval("int", 1, None, "both", "replicates per chunk", most=10_000_000),
    "k": Interval("int", 1, None, "left", "minimum group size of microaggregation", most=MAX_RECORDS),
    "swap_percent": Interval("float", 0.0, 100.0, "both", "rank-swapping window, percent of the records"),
    "records": Interval("int", 1, None, "left", "number of records (one suffices, unlike the analytic setting's n)", most=MAX_RECORDS),
    # disclosure risk measures (rumap.risk.linkage, rumap.risk.interval, rumap.risk.identity)
    "tolerance": Interval("float", 0.0, None, "left", "agreement tolerance of numeric keys (standard deviations)"),
    "block_size": Interval("int", 2, None, "left", "records per block of probabilistic linkage", most=MAX_RECORDS),
    "max_iter": Interval("int", 1, 1_000_000, "both", "maximum number of EM iterations"),
    # a width, not a rule's accuracy: the same bound as rule_percent, but its own slider range
    "interval_percent": Interval("float", 0.0, 100.0, "right",
                                 "interval width in percent (of the records, or of a standard deviation)",
                                 slider=(0.5, 50.0, 0.5)),
    "f": Interval("float", 0.0, 1.0, "right", "sampling fraction: n / N, or f_k / F_k in one cell"),
    "a": Interval("float", 0.0, None, "left", "number of acquaintances of the investigator"),
    "f_u": Interval("float", 0.0, 1.0, "both", "fraction of population uniques u / N"),
    "N": Interval("float", 1.0, None, "left", "population size"),
    "investigators": Interval("int", 1, None, "left", "number of investigators", most=MAX_RECORDS),
    "risk_bound": Interval("float", 0.0, 1.0, "neither", "maximum tolerable identification risk (a probability)"),
    "share_bound": Interval("float", 0.0, 1.0, "right", "maximum tolerable share of the records re-identified"),
    "beta": Interval("float", 0.0, None, "left", "scale parameter of the Poisson-gamma model"),
    "f_a": Interval("float", 0.0, 1.0, "both", "fraction of acquaintances a / N"),
    "band_width": Interval("float", 0.0, None, "neither", "width of the bands of a recoded variable"),
    "theta": Interval("float", 0.0, 1.0, "both", "retention probability of PRAM"),
    "cells": Interval("int", 1, None, "left", "number of cells k of the key", most=MAX_RECORDS),
    "max_size": Interval("int", 1, 64, "both", "the largest size of a minimal sample unique"),
    "dis_fraction": Interval("float", 0.0, 1.0, "neither", "the sampling fraction of the DIS score"),
    "value": Interval("float", None, None, "neither", "a finite number"),
    "weight": Interval("float", 0.0, None, "left", "a non-negative weight"),
    "sampling_weight": Interval("float", 1.0, None, "left", "a sampling weight (records of the population per record)"),
    "position": Interval("int", 0, None, "left", "a 0-based position in a list (of maps, of curves)", most=MAX_RECORDS),
    "group_label": Interval("int", 0, None, "left", "a group label", most=MAX_RECORDS),
    "cache_entries": Interval("int", 1, None, "left", "the most results a cache holds", most=1_000_000),
    "record_chunk": Interval("int", 1, None, "left", "records per chunk", most=MAX_RECORDS),
    "key_partitions": Interval("int", 1, None, "left", "partitions of the key rows", most=MAX_RECORDS),
    "household_partitions": Interval("int", 1, None, "left", "partitions of the households", most=MAX_RECORDS),
    "plan_steps": Interval("int", 1, 100, "both", "steps of a release plan"),
    "prediction_replicates": Interval("int", 2, 10_000, "both", "simulated releases per step of a prediction band"),
    "resamples": Interval("int", 10, None, "left", "bootstrap resamples", most=10_000_000),
    "relative_sd": Interval("float", 0.0, 1.0, "both", "the noise's standard deviation, relative"),
    "lambda2_upper": Interval("float", 0.0, None, "neither", "the largest noise variance searched"),
    "extremes_n": Interval("int", 3, None, "left", "number of records (the extremes' constants need ln ln n)", most=MAX_RECORDS),
    "picture_width": Interval("int", 200, 4000, "both", "the picture's width in pixels"),
    "picture_height": Interval("int", 150, 4000, "both", "the picture's height in pixels"),
    # record linkage and key variables (rumap.risk.linkage.probabilistic, rumap.risk.suda, rumap.risk.keys)
    "probabilistic_keys": Interval("int", 1, 16, "both", "number of key variables of probabilistic linkage"),
    "match_share": Interval("float", 0.0, 1.0, "neither", "starting proportion of matched pairs"),
    "convergence_tolerance": Interval("float", 0.0, None, "neither", "convergence tolerance"),
    "key_variables": Interval("int", 1, 64, "both", "the number of key variables"),
    "key_dimension": Interval("int", 1, 10, "both", "the largest number of key variables combined"),
    # tables (rumap.tables, rumap.maps.tables)
    "cell_value": Interval("float", 0.0, None, "left", "a non-negative cell of a table"),
    "contribution": Interval("float", 0.0, None, "left", "a respondent's contribution to a cell"),
    "possible_values": Interval("float", 1.0, None, "left", "a number m of possible values"),
    "dominance_ratio": Interval("float", 0.0, 1.0, "both", "ratio r of Lemma 1"),
    "external_bound": Interval("float", 0.0, 1e6, "neither", "external bound in percent of each cell's value"),
    "granularity_threshold": Interval("float", 0.0, 100.0, "right", "the granularity index (%) of an unsafe hyper-row"),
    "dispersed_frequency": Interval("int", 1, 10**9, "both", "the least frequency around a dispersed unit cell"),
    "odd_expected": Interval("float", 0.0, 1e9, "right", "the least expected frequency of an odd unit cell"),
    "top_contributions": Interval("int", 2, 50, "both", "largest contributions kept per cell"),
    "replicate_risk": Interval("float", 0.0, None, "left",
                               "a replicate's squared error of the snooper, or its value of a risk measure"),
    "code_length": Interval("int", 1, None, "left", "the length of a hierarchy level's codes", most=1000),
    "rule_parameter": Interval("float", 0.0, None, "neither", "a value of the rule's parameter"),
    # statistical databases (rumap.databases, rumap.maps.databases)
    "camouflage_width": Interval("float", 0.0, 100.0, "right", "the protection width, percent of each value"),
    "camouflage_k": Interval("int", 3, 50, "both", "the number k of camouflage vectors (P^k is the data)"),
    "audit_protection": Interval("float", 0.0, 100.0, "both",
                                 "the protection interval, percent of each value (0: exact only)"),
    # a bound becomes a released value: within the data's largest magnitude (rumap._validation.MAX_MAGNITUDE)
    "known_bound": Interval("float", -1e150, 1e150, "both", "a known lower or upper bound of every value"),
    "workload_queries": Interval("int", 1, 1000, "both", "the number of random queries in the workload"),
    "workload_records": Interval("int", 2, 500, "both", "the number of records sampled for the workload"),
}
