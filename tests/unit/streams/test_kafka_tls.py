"""Kafka TLS with your own CA and a client certificate (e.g. Strimzi's cluster CA and a KafkaUser):
both kinds of Kafka client get the same files from the settings."""

from __future__ import annotations

import shutil
import ssl
import subprocess

import faust
import pytest

from schemas.settings import Settings
from streams.credentials import broker_credentials

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A CA and a client certificate it signed, as PEM files."""
    d = tmp_path_factory.mktemp("pki")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=d, timeout=60)

    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "2",
        "-subj",
        "/CN=test-cluster-ca",
    )
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "user.key", "-out", "user.csr", "-subj", "/CN=dreamstream")
    run(
        "x509",
        "-req",
        "-in",
        "user.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "user.crt",
        "-days",
        "2",
    )
    return d


def test_both_clients_use_the_ca_and_the_client_certificate(pki):
    settings = Settings(
        kafka_security_protocol="SSL",
        kafka_ssl_ca_location=pki / "ca.crt",
        kafka_ssl_certificate_location=pki / "user.crt",
        kafka_ssl_key_location=pki / "user.key",
    )
    config = settings.kafka_client_config()
    assert config["ssl.ca.location"] == str(pki / "ca.crt")
    assert config["ssl.certificate.location"] == str(pki / "user.crt") and config["ssl.key.location"] == str(
        pki / "user.key"
    )
    creds = broker_credentials(settings)
    assert isinstance(creds, faust.SSLCredentials)
    context: ssl.SSLContext = creds.context
    assert [c["subject"] for c in context.get_ca_certs()] == [((("commonName", "test-cluster-ca"),),)]


def test_a_certificate_needs_its_key():
    with pytest.raises(ValueError, match="go together"):
        Settings(kafka_security_protocol="SSL", kafka_ssl_certificate_location="/etc/user.crt")


def test_a_wrong_key_fails_at_start_not_at_the_first_connection(pki):
    settings = Settings(
        kafka_security_protocol="SSL",
        kafka_ssl_ca_location=pki / "ca.crt",
        kafka_ssl_certificate_location=pki / "user.crt",
        kafka_ssl_key_location=pki / "ca.key",
    )
    with pytest.raises(ssl.SSLError):
        broker_credentials(settings)
