"""The engine-agnostic phases of a dream pass: apply a plan, prune, gate."""
