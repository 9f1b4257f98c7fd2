# Published cells of R's cellKey 1.0.3 (with ptable 1.0.0) for tests/tables/test_cellkey.py.
# Writes the microdata (micro.csv: region, sex, age, w and the record keys rk), a region
# hierarchy (region.hrc), and for each case the cells cellKey publishes: codes, original
# unweighted and weighted counts (uwc, wc), cell key (ckey), perturbation (pert) and the
# published counts (puwc, pwc). Run from this folder: Rscript make_cellkey.R
suppressPackageStartupMessages({library(cellKey); library(sdcHierarchies); library(data.table)})
set.seed(20261129)
n <- 300
x <- data.table(
  region = sample(c("N1", "N2", "S1", "S2"), n, replace = TRUE, prob = c(0.5, 0.2, 0.2, 0.1)),
  sex = sample(c("m", "f"), n, replace = TRUE),
  age = sample(c("a1", "a2", "a3"), n, replace = TRUE, prob = c(0.6, 0.3, 0.1)),
  w = round(runif(n, 1, 10), 2))
x$rk <- ck_generate_rkeys(dat = x, nr_digits = 8, seed = 7)
fwrite(x, "micro.csv")
writeLines(c("N", "@N1", "@N2", "S", "@S1", "@S2"), "region.hrc")

d_region <- hier_create(root = "Total", nodes = c("N", "S"))
d_region <- hier_add(d_region, root = "N", nodes = c("N1", "N2"))
d_region <- hier_add(d_region, root = "S", nodes = c("S1", "S2"))
d_sex <- hier_create(root = "Total", nodes = c("m", "f"))
d_age <- hier_create(root = "Total", nodes = c("a1", "a2", "a3"))

cases <- list(
  list(name = "region_sex_D3_V1.08_js1", dims = list(region = d_region, sex = d_sex), D = 3, V = 1.08, js = 1),
  list(name = "region_sex_age_D5_V3_js2", dims = list(region = d_region, sex = d_sex, age = d_age),
       D = 5, V = 3, js = 2))
for (cs in cases) {
  ck <- ck_setup(x = x, rkey = "rk", dims = cs$dims, w = "w")
  ck$params_cnts_set(val = ck_params_cnts(ptab = ptable::create_cnt_ptable(D = cs$D, V = cs$V, js = cs$js)), v = "total")
  ck$perturb(v = "total")
  tab <- ck$freqtab(v = "total")
  mods <- ck$mod_cnts()
  keys <- c(names(cs$dims))
  out <- merge(tab, mods[, c(keys, "ckey", "pert"), with = FALSE], by = keys, sort = FALSE)
  out$vname <- NULL
  fwrite(out, paste0("cellkey_", cs$name, ".csv"))
}
