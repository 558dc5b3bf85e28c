"""Compiled (numba) fast paths for the simulator."""
