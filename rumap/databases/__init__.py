"""Databases: answering queries on a confidential field with camouflage, and auditing sequences of queries."""
