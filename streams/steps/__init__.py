"""The stream worker's steps, each a `plumbing.step.Step`: fold → output → commit (`streams.loop`)."""
