# Reference values from sdcMicro (R) for rumap's tests: individual and household risk of the bundled survey.
# Run from the repository root after installing sdcMicro (see ../shared/PEERS.md):
#   Rscript scripts/sdcmicro_reference.R
# It writes tests/data/sdcmicro_survey_risk.json, which tests/risk/test_individual.py compares with.
suppressPackageStartupMessages(library(sdcMicro))
suppressPackageStartupMessages(library(jsonlite))
survey <- read.csv("data/survey.csv", stringsAsFactors = FALSE, na.strings = "")
keys <- c("age_band", "sex", "region", "marital", "occupation")
for (k in keys) survey[[k]] <- as.factor(survey[[k]])
weighted <- measure_risk(survey, keyVars = keys, w = "weight", hid = "hh")
census <- measure_risk(survey, keyVars = keys)
f <- freqCalc(survey, keyVars = keys, w = "weight")
survey$health <- as.factor(survey$health)
ld <- ldiversity(survey, keyVars = keys, ldiv_index = "health")
out <- list(
  sdcmicro_version = as.character(packageVersion("sdcMicro")),
  keys = keys,
  weighted = list(risk = weighted$Res[, "risk"], fk = weighted$Res[, "fk"], Fk = weighted$Res[, "Fk"],
                  household_risk = weighted$Res[, "hier_risk"],
                  expected_reidentifications = weighted$global_risk_ER, global_risk = weighted$global_risk,
                  household_expected_reidentifications = weighted$hier_risk_ER),
  census = list(risk = census$Res[, "risk"], fk = census$Res[, "fk"],
                expected_reidentifications = census$global_risk_ER),
  freqcalc = list(fk = f$fk, Fk = f$Fk),
  ldiversity_health = ld[, "health_Distinct_Ldiversity"]
)
write(toJSON(out, digits = NA, auto_unbox = TRUE), "tests/data/sdcmicro_survey_risk.json")
