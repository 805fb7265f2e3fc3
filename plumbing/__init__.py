"""What the stream worker and the consolidation worker share below their own code: Kafka client
construction (`kafka_io`) and the metrics/probe server with the lag gauge (`metrics`). It imports
only `schemas`; both workers import it, never each other."""
