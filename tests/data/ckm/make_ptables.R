# Perturbation tables of R's ptable 1.0.0 (create_cnt_ptable, create_num_ptable) for
# tests/tables/test_cellkey.py: one CSV of every table that ptable builds, with its
# parameters, and the parameters it refuses. Run from this folder: Rscript make_ptables.R
library(ptable)
cases <- list(
  list(D = 2, V = 1, js = 0), list(D = 2, V = 1, js = 1), list(D = 3, V = 1.08, js = 1),
  list(D = 3, V = 2, js = 0), list(D = 4, V = 2, js = 1), list(D = 5, V = 3, js = 2),
  list(D = 5, V = 3, js = 0), list(D = 2, V = 0.5, js = 0), list(D = 6, V = 4, js = 3),
  list(D = 3, V = 1, js = 2), list(D = 1, V = 0.5, js = 0), list(D = 4, V = 5, js = 0)
)
rows <- list()
refused <- list()
for (cs in cases) {
  res <- tryCatch(create_cnt_ptable(D = cs$D, V = cs$V, js = cs$js), error = function(e) NULL)
  if (is.null(res)) {
    refused[[length(refused) + 1]] <- data.frame(D = cs$D, V = cs$V, js = cs$js)
  } else {
    pt <- as.data.frame(res@pTable)[, c("i", "j", "p", "v", "p_int_lb", "p_int_ub")]
    rows[[length(rows) + 1]] <- cbind(data.frame(D = cs$D, V = cs$V, js = cs$js), pt)
  }
}
write.csv(do.call(rbind, rows), "ptables_cnts.csv", row.names = FALSE)
write.csv(do.call(rbind, refused), "ptables_refused.csv", row.names = FALSE)
num <- create_num_ptable(D = 5, V = 2, step = 4, icat = c(1, 3, 5))
write.csv(as.data.frame(num@pTable)[, c("i", "j", "p", "v", "p_int_lb", "p_int_ub")], "ptable_nums.csv",
          row.names = FALSE)
