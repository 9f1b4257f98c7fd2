"""Disclosure risk measures of masked microdata: record linkage, interval disclosure and identity risk."""
