# Reference SUDA2 scores from sdcMicro (R) for rumap's tests: special uniques of the bundled survey.
# Run from the repository root after installing sdcMicro (see ../shared/PEERS.md):
#   Rscript scripts/sdcmicro_suda2_reference.R
# It writes tests/data/sdcmicro_survey_suda2.json, which tests/risk/test_suda.py compares with.
suppressPackageStartupMessages(library(sdcMicro))
suppressPackageStartupMessages(library(jsonlite))
survey <- read.csv("data/survey.csv", stringsAsFactors = FALSE, na.strings = "")
keys <- c("age_band", "sex", "region", "marital", "occupation")
for (k in keys) survey[[k]] <- as.factor(survey[[k]])  # suda2 takes numeric codes; missing stays NA
default <- suda2(survey, variables = keys)
tenth <- suda2(survey, variables = keys, DisFraction = 0.1)
four <- c("age_band", "sex", "marital", "hh_size")
survey$hh_size <- as.factor(survey$hh_size)
small <- suda2(survey, variables = four, DisFraction = 0.05)
out <- list(
  sdcmicro_version = as.character(packageVersion("sdcMicro")),
  keys = keys,
  default = list(dis_fraction = 0.01, score = default$score, dis_score = default$disScore),
  tenth = list(dis_fraction = 0.1, score = tenth$score, dis_score = tenth$disScore),
  four = list(keys = four, dis_fraction = 0.05, score = small$score, dis_score = small$disScore)
)
write(toJSON(out, digits = NA, auto_unbox = TRUE), "tests/data/sdcmicro_survey_suda2.json")
