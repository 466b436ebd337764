"""Benchmarks: each module is one command (see bench/README.md)."""
