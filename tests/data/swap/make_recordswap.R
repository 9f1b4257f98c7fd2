# Properties of sdcMicro's recordSwap on persons.csv (300 households in 2 regions x 3 districts), for
# tests/masking/test_targeted_swap.py: its draws cannot match ours, so only what the swap must keep is
# compared. Writes recordswap.csv: one row per seed with the households and records swapped, the share
# swapped, the households at risk (k-anonymity 3 on sex, age within region and within district) left
# unswapped, and whether the persons per district and the household sizes per district are unchanged.
# Run from this folder: Rscript make_recordswap.R
suppressPackageStartupMessages({library(sdcMicro); library(data.table)})
x <- fread("persons.csv")
x[, `:=`(region = as.integer(factor(region)), sex = as.integer(factor(sex)))]  # recordSwap takes integers
out <- rbindlist(lapply(1:5, function(seed) {
  sw <- recordSwap(copy(x), hid = "hid", hierarchy = c("region", "district"), similar = list("hsize"),
                   risk_variables = c("sex", "age"), k_anonymity = 3, swaprate = 0.1, seed = seed,
                   return_swapped_id = TRUE, log_file_name = tempfile())
  moved <- sw[hid != hid_swapped]
  risky <- unique(c(x[, .N, by = .(region, sex, age)][N < 3][x, on = .(region, sex, age), nomatch = 0]$hid,
                    x[, .N, by = .(region, district, sex, age)][N < 3][x, on = .(region, district, sex, age),
                                                                        nomatch = 0]$hid))
  swapped_hh <- unique(sw[hid != hid_swapped]$hid_swapped)
  before <- x[, .N, by = .(district, hsize)][order(district, hsize)]
  after <- sw[, .N, by = .(district, hsize)][order(district, hsize)]
  data.table(seed = seed, households = uniqueN(x$hid), swapped_households = length(swapped_hh),
             records_swapped = nrow(moved), share = length(swapped_hh) / uniqueN(x$hid),
             at_risk = length(risky), at_risk_unswapped = length(setdiff(risky, swapped_hh)),
             sizes_kept = isTRUE(all.equal(before, after)))
}))
fwrite(out, "recordswap.csv")
