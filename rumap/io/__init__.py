"""Reading data: microdata files from disk or from uploaded bytes, kept in memory."""
