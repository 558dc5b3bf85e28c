"""Fairness tuning: searching rules switches toward seats that win equally often."""
