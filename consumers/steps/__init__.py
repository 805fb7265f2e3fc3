"""The consolidation worker as small steps, each owning one resource and its failure handling."""
