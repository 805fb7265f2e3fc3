"""Faust gets the same Kafka security as the confluent-kafka clients."""

from __future__ import annotations

import faust
import pytest

from schemas.settings import Settings
from streams.credentials import broker_credentials


def test_plaintext_needs_no_credentials():
    assert broker_credentials(Settings()) is None


def test_sasl_ssl_builds_sasl_credentials_with_tls():
    settings = Settings(
        kafka_security_protocol="SASL_SSL",
        kafka_sasl_mechanism="SCRAM-SHA-512",
        kafka_sasl_username="svc",
        kafka_sasl_password="s3cret",
    )
    creds = broker_credentials(settings)
    assert isinstance(creds, faust.SASLCredentials)
    assert creds.username == "svc" and creds.password == "s3cret" and creds.ssl_context is not None
    assert str(creds.mechanism.value) == "SCRAM-SHA-512"


def test_sasl_without_a_password_is_a_clear_error():
    with pytest.raises(ValueError, match="kafka_sasl_password"):
        broker_credentials(Settings(kafka_security_protocol="SASL_PLAINTEXT", kafka_sasl_username="svc"))
