"""One frozen, validated settings object per process, read from the environment.

Variables are `DREAMSTREAM_<FIELD>`; the two a newcomer is most likely to set also have their
conventional names (`KAFKA_BOOTSTRAP_SERVERS`, `QDRANT_URL`). Secrets are `SecretStr`, so they
are masked in every repr, log line and `settings show`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, AwareDatetime, Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from schemas.policy import TriggerPolicy
from schemas.topics import TopicCatalog

MIN_TOKEN_CHARS = 16
MIN_TOKEN_DISTINCT_CHARS = 8
"""Sixteen "0"s are long enough and guessable: a token needs this many different characters."""


def _alias(field: str, *others: str) -> AliasChoices:
    return AliasChoices(f"DREAMSTREAM_{field.upper()}", *others)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        frozen=True, extra="ignore", env_prefix="DREAMSTREAM_", populate_by_name=True, env_nested_delimiter="__"
    )

    # --- Kafka
    kafka_bootstrap_servers: str = Field(
        default="127.0.0.1:9092", validation_alias=_alias("kafka_bootstrap_servers", "KAFKA_BOOTSTRAP_SERVERS")
    )
    kafka_security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    kafka_sasl_mechanism: str | None = None
    kafka_sasl_username: str | None = None
    kafka_sasl_password: SecretStr | None = None
    # TLS (SSL / SASL_SSL): files mounted from Secrets, e.g. Strimzi's cluster CA and a user certificate.
    kafka_ssl_ca_location: Path | None = Field(
        default=None, description="PEM CA bundle that signed the brokers' certificates"
    )
    kafka_ssl_certificate_location: Path | None = Field(default=None, description="PEM client certificate (mutual TLS)")
    kafka_ssl_key_location: Path | None = Field(default=None, description="PEM private key of the client certificate")
    kafka_ssl_key_password: SecretStr | None = None
    topic_prefix: str = Field(
        default="dreamstream",
        pattern=r"^[A-Za-z0-9._-]{1,100}$",
        description="names the deployment: its topics, and by default its app id, consumer group and collections",
    )
    partitions: int = Field(default=6, ge=1, le=10_000)
    replication_factor: int = Field(default=1, ge=1, le=10)
    # The defaults below are those of the default prefix: `_named_by_the_deployment` derives
    # each from `topic_prefix` when it is not set on its own.
    app_id: str = Field(
        default="dreamstream-streams",
        pattern=r"^[A-Za-z0-9._-]{1,100}$",
        description="the stream worker's group and changelog (`<app_id>-signals-changelog`); "
        "default <topic_prefix>-streams",
    )
    consumer_group: str = Field(
        default="dreamstream-consolidation",
        min_length=1,
        description="the consolidation workers' group; default <topic_prefix>-consolidation",
    )
    session_timeout_ms: int = Field(default=10_000, ge=1_000)

    # --- Qdrant
    qdrant_url: str | None = Field(default=None, validation_alias=_alias("qdrant_url", "QDRANT_URL"))
    qdrant_api_key: SecretStr | None = Field(default=None, validation_alias=_alias("qdrant_api_key", "QDRANT_API_KEY"))
    home: Path = Field(default=Path("~/.dreamstream"), description="local state: broker, embedded Qdrant")
    collection_prefix: str = Field(
        default="dreamstream",
        pattern=r"^[A-Za-z0-9_-]{1,64}$",
        description="Qdrant collections (`<collection_prefix>_memories`, ...); default the topic prefix ('.' as '_')",
    )
    generations_kept: int = Field(default=5, ge=2, le=100)
    embedded_store: Literal["edge", "local"] = Field(
        default="edge",
        description="without qdrant_url: edge = Qdrant's engine in-process (qdrant-edge-py, payload indexes); "
        "local = qdrant-client's local mode (filters in Python over every point; small stores only)",
    )
    memory_vectors: Literal["embed", "evidence"] = Field(
        default="embed",
        description="a memory written from messages: embed its text (embed), or reuse the mean of its "
        "evidence messages' indexed vectors (evidence: one embedding per message in all)",
    )
    transcript_vectors: Literal["statements", "embed"] = Field(
        default="statements",
        description="a transcript message's vector: the mean of the statements a pass makes of it, or its text "
        "embedded when a search needs one (statements: the index step embeds nothing), or its text embedded "
        "by the index step (embed; memory_vectors=evidence implies it)",
    )
    api_read_threads: int = Field(default=2, ge=1, le=64, description="HTTP API: store reads run at once")
    api_read_queue: int = Field(
        default=32, ge=0, le=10_000, description="HTTP API: reads waiting for a thread; beyond that a 429 at once"
    )
    api_read_wait_s: float = Field(
        default=0.1,
        gt=0,
        le=60,
        description="HTTP API: a read that would wait longer than this for a thread (judged from recent reads) "
        "is answered 429 at once",
    )

    # --- When a scope dreams (DREAMSTREAM_TRIGGER__IDLE_S=300;
    # per tenant: DREAMSTREAM_TENANT_POLICIES='{"acme": {"idle_s": 60}}')
    trigger: TriggerPolicy = TriggerPolicy()
    tenant_policies: dict[str, dict[str, float]] = Field(default_factory=dict)
    timer_interval_s: float = Field(default=10.0, gt=0, description="how often time-based triggers are checked")
    streams_web_port: int = Field(default=0, ge=0, le=65_535, description="Faust web server on 127.0.0.1; 0 = off")
    max_event_bytes: int = Field(default=256 * 1024, ge=1_024)
    max_bad_share: float = Field(default=0.5, gt=0, le=1, description="stop when this share of recent events is bad")
    bad_share_window: int = Field(default=1_000, ge=10)
    bad_share_min_events: int = Field(
        default=100, ge=1, description="the storm guard judges a partition once its window holds this many events"
    )
    event_time_min: AwareDatetime = Field(
        default=datetime(1900, 1, 1, tzinfo=UTC), description="earliest event ts accepted"
    )
    event_time_max: AwareDatetime = Field(
        default=datetime(2200, 1, 1, tzinfo=UTC), description="latest event ts accepted"
    )
    streams_batch_size: int = Field(default=2_000, ge=1, le=100_000, description="records per consume call")
    streams_linger_ms: float = Field(default=5.0, ge=0, le=1_000, description="stream worker producer linger")
    broker_retry_log_s: float = Field(
        default=30.0, gt=0, description="while the broker is unreachable, log once per this interval"
    )

    # --- The dream pass
    engine: Literal["offline", "llm"] = "offline"
    memory_cap: int = Field(default=100, ge=1, description="most memories in a scope's core tier")
    core_token_budget: int = Field(default=2_000, ge=50, description="estimated tokens of a scope's core tier")
    transcript_window: int = Field(default=10_000, ge=1, description="most recent messages a pass reads")
    pass_group: int = Field(
        default=8,
        ge=1,
        le=64,
        description="ready jobs of distinct scopes whose passes embed their first texts in one model call",
    )
    embedding_dims: int = Field(default=256, ge=16, le=4096, description="width of the hashing test embedder only")
    llm_model: str = "openai/gpt-4o-mini"
    llm_api_base: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_retries: int = Field(default=1, ge=0, le=10)
    llm_context_tokens: int = Field(
        default=16_000, ge=512, description="the model's context: each chunk's prompt plus its reply budget fits it"
    )
    llm_reply_tokens: int = Field(default=4_000, ge=64, description="reply budget per model call (max_tokens)")
    llm_max_calls_per_pass: int = Field(
        default=16, ge=1, le=1_000, description="model calls a pass may make; the rest of its messages wait"
    )
    llm_structured_output: bool = Field(
        default=True,
        description="send the plan's JSON Schema as response_format; false: JSON mode only (the schema in the prompt)",
    )
    llm_chars_per_token: float = Field(
        default=2.5, gt=0.5, le=10, description="how many prompt characters one token is taken to hold (cautious)"
    )
    max_memory_chars: int = Field(default=2_000, ge=100, description="gate: longest memory text a pass may write")
    condense_chars: int = Field(default=1_000, ge=80, description="prune: longer memories keep their first sentences")
    inactive_generations: int = Field(
        default=3,
        ge=1,
        description="prune: generations a superseded/merged/archived record is carried before it is left out",
    )
    verify_top_k: int = Field(default=8, ge=1, le=100, description="verify: transcript search hits per claim")
    verify_max_claims: int = Field(
        default=100, ge=0, description="verify: claims searched per pass (pending adds first)"
    )
    gate_max_retire_share: float = Field(
        default=0.3, gt=0, le=1, description="gate: a plan retiring more of a scope's memories goes to quarantine"
    )
    gate_retire_allowance: int = Field(
        default=2, ge=0, description="gate: retirements always allowed, whatever the share (small scopes)"
    )
    gate_min_relevance: float = Field(
        default=0.3, ge=0, le=1, description="gate: evidence-to-memory embedding similarity that counts as 'about it'"
    )
    gate_min_merge_similarity: float = Field(
        default=0.5, ge=0, le=1, description="gate: embedding similarity of texts a merge may join"
    )
    assistant_roles: dict[str, Literal["person", "assistant"]] = Field(
        default_factory=dict,
        description='who the `assistant` role is, per tenant, agent or scope prefix: {"acme/pen-pals": "person"} '
        "(two people chatting); unset scopes are read from the text",
    )
    trusted_producers: list[str] = Field(
        default_factory=list,
        description="memory-add producers (the `producer` header) whose `protected: true` is honoured",
    )
    privacy_mode: Literal["mask", "block"] = Field(
        default="mask", description="gate: mask findings in new/changed memories, or block (quarantine) the pass"
    )
    privacy_patterns: dict[str, str] = Field(
        default_factory=dict, description='extra privacy patterns, name -> regex: {"iban": "\\bDE\\d{20}\\b"}'
    )

    @field_validator("privacy_patterns")
    @classmethod
    def _check_privacy_patterns(cls, value: dict[str, str]) -> dict[str, str]:
        import re

        for name, pattern in value.items():
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,63}", name):
                raise ValueError(f"privacy_patterns: name {name!r} must be a short identifier")
            try:
                re.compile(pattern)
            except re.error as err:
                raise ValueError(f"privacy_patterns[{name!r}]: not a valid regex: {err}") from err
        return value

    # --- Embeddings (Qdrant collections take their width from the embedder, never from a setting)
    embedder: Literal["minilm", "hashing", "litellm"] = Field(
        default="minilm",
        description="minilm: offline all-MiniLM-L6-v2 on onnxruntime; litellm: embedding_model; "
        "hashing: a deterministic test double, no meaning",
    )
    embedding_model: str = Field(default="openai/text-embedding-3-small", description="litellm embedding model")
    embedding_api_base: str | None = Field(default=None, description="litellm embeddings endpoint; unset: llm_api_base")
    embedding_api_key: SecretStr | None = Field(default=None, description="unset: llm_api_key")
    embedding_threads: int = Field(default=1, ge=1, le=64, description="onnxruntime threads of the MiniLM session")

    # --- Operations
    metrics_port: int = Field(default=0, ge=0, le=65_535, description="0 disables the metrics server")
    metrics_host: str = Field(default="127.0.0.1", description="bind address of the metrics server")
    api_port: int = Field(default=0, ge=0, le=65_535, description="consolidation worker HTTP API; 0 = off")
    api_host: str = Field(default="127.0.0.1", description="bind address of the HTTP API")
    api_token: SecretStr | None = Field(
        default=None,
        description="bearer token of at least 16 characters, 8 of them different; required when api_host is not "
        "loopback",
    )
    api_operator_token: SecretStr | None = Field(
        default=None,
        description="a second bearer token (16+ characters, unlike api_token) for the operator role: steering, "
        "rollback, quarantine decisions, corrections of protected memories; unset: api_token holders are operators",
    )
    # --- The change stream
    audit_schema_id: int | None = Field(
        default=None,
        ge=0,
        le=2**31 - 1,
        description="Confluent Schema Registry id of audit_event.schema.json: set it to frame audit records "
        "(magic byte 0 + 4-byte id + JSON) for Schema Registry aware consumers",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    @model_validator(mode="before")
    @classmethod
    def _named_by_the_deployment(cls, data: Any) -> Any:
        """Everything a deployment owns is named after its topic prefix unless set on its own, so
        two deployments that differ only by DREAMSTREAM_TOPIC_PREFIX share no group, changelog or
        collection (with the default prefix these are the names they always had)."""
        if not isinstance(data, dict):
            return data
        prefix = data.get("topic_prefix") or cls.model_fields["topic_prefix"].default
        named = dict(data)
        if isinstance(prefix, str):
            named.setdefault("app_id", f"{prefix}-streams")
            named.setdefault("consumer_group", f"{prefix}-consolidation")
            named.setdefault("collection_prefix", prefix.replace(".", "_")[:64])
        return named

    @field_validator("tenant_policies")
    @classmethod
    def _check_tenant_policies(cls, value: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        for tenant, override in value.items():
            try:
                TriggerPolicy(**override)
            except ValueError as err:
                raise ValueError(f"tenant_policies[{tenant!r}]: {err}") from err
        return value

    @field_validator("api_token", "api_operator_token")
    @classmethod
    def _token_long_enough(cls, value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
        # An empty variable must not silently switch authentication off.
        name = f"DREAMSTREAM_{(info.field_name or '').upper()}"
        if value is not None and not value.get_secret_value().strip():
            raise ValueError(f"{name} is set but empty: unset it or give a token")
        if value is not None and len(value.get_secret_value()) < MIN_TOKEN_CHARS:
            raise ValueError(f"{name} is too short: at least {MIN_TOKEN_CHARS} characters")
        if value is not None and len(set(value.get_secret_value())) < MIN_TOKEN_DISTINCT_CHARS:
            raise ValueError(f"{name} is too easy to guess: at least {MIN_TOKEN_DISTINCT_CHARS} different characters")
        return value

    @model_validator(mode="after")
    def _operator_token_is_a_second_token(self) -> Settings:
        if self.api_operator_token is None:
            return self
        if self.api_token is None:
            raise ValueError(
                "api_operator_token needs api_token too: the operator token only means something beside the agents' one"
            )
        if self.api_operator_token.get_secret_value() == self.api_token.get_secret_value():
            raise ValueError("api_operator_token must differ from api_token, or the two roles are one")
        return self

    @model_validator(mode="after")
    def _reply_fits_the_context(self) -> Settings:
        if self.llm_reply_tokens * 2 > self.llm_context_tokens:
            raise ValueError(
                f"llm_reply_tokens {self.llm_reply_tokens} leaves too little of llm_context_tokens "
                f"{self.llm_context_tokens} for the prompt: at most half of it"
            )
        return self

    @model_validator(mode="after")
    def _tls_files_pair_up(self) -> Settings:
        if bool(self.kafka_ssl_certificate_location) != bool(self.kafka_ssl_key_location):
            raise ValueError("kafka_ssl_certificate_location and kafka_ssl_key_location go together (mutual TLS)")
        return self

    @model_validator(mode="after")
    def _remote_api_needs_a_token(self) -> Settings:
        if self.api_port and self.api_host not in ("127.0.0.1", "localhost", "::1") and self.api_token is None:
            raise ValueError(f"api_host {self.api_host!r} is not loopback: set api_token (DREAMSTREAM_API_TOKEN)")
        return self

    def policy_for(self, tenant: str) -> TriggerPolicy:
        override = self.tenant_policies.get(tenant)
        return TriggerPolicy.model_validate({**self.trigger.model_dump(), **override}) if override else self.trigger

    @field_validator("home")
    @classmethod
    def _expand_home(cls, value: Path) -> Path:
        return value.expanduser()

    @property
    def topics(self) -> TopicCatalog:
        return TopicCatalog(self.topic_prefix, self.partitions, self.replication_factor, self.app_id)

    @property
    def index_embeds_turns(self) -> bool:
        """Whether the index step embeds each turn: `transcript_vectors=embed`, or the memories
        reuse their messages' vectors (`memory_vectors=evidence` needs real ones at once)."""
        return self.transcript_vectors == "embed" or self.memory_vectors == "evidence"

    @property
    def qdrant_path(self) -> Path:
        """The embedded store's folder (each engine has its own: their files differ)."""
        return self.home / ("qdrant-edge" if self.embedded_store == "edge" else "qdrant")

    def kafka_client_config(self) -> dict[str, str]:
        """librdkafka properties shared by every confluent-kafka client of this process."""
        config = {
            "bootstrap.servers": self.kafka_bootstrap_servers,
            "security.protocol": self.kafka_security_protocol,
        }
        if self.kafka_sasl_mechanism:
            config["sasl.mechanism"] = self.kafka_sasl_mechanism
        if self.kafka_sasl_username:
            config["sasl.username"] = self.kafka_sasl_username
        if self.kafka_sasl_password:
            config["sasl.password"] = self.kafka_sasl_password.get_secret_value()
        for name, value in (
            ("ssl.ca.location", self.kafka_ssl_ca_location),
            ("ssl.certificate.location", self.kafka_ssl_certificate_location),
            ("ssl.key.location", self.kafka_ssl_key_location),
        ):
            if value is not None:
                config[name] = str(value)
        if self.kafka_ssl_key_password:
            config["ssl.key.password"] = self.kafka_ssl_key_password.get_secret_value()
        return config


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings, read once."""
    return Settings()
