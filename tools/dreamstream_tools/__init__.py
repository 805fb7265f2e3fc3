"""Development and evaluation tooling for dreamstream (the `dreamstream-tools` distribution in
`tools/`): the local Kafka broker, the in-process pipeline harness, the demo and the evaluation
suite. The runtime (`dreamstream`, the workers) never imports it; its commands (`demo`, `kafka`,
`eval`, `eval-data`, `eval-variant`) join the `dreamstream` CLI through the `dreamstream.commands` entry points."""
