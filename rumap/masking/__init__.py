"""Masking methods: additive noise, microaggregation and rank swapping."""
