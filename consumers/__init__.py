"""The consolidation worker: its Kafka loop (`worker.py`), its steps (`steps/`), the HTTP API (`api/`) and the
process runtime that wires the dreaming core (`dreaming/`) to the settings (`runtime.py`)."""
