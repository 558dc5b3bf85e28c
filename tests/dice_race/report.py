"""Dice Race declares no report sections of its own: its reports are the shared ones."""
