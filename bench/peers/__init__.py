"""Helpers of bench/compare.py."""
