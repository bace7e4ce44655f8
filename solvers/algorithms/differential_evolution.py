"""Placeholder until the module is written."""
