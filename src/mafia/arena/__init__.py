"""Arenas: many games across context policies and models, their metrics and their report."""
