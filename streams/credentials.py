"""Kafka security for Faust, from the same settings the confluent-kafka clients use."""

from __future__ import annotations

import ssl

import faust

from schemas.settings import Settings


def broker_credentials(settings: Settings) -> faust.types.auth.CredentialsT | None:
    protocol = settings.kafka_security_protocol
    if protocol == "PLAINTEXT":
        return None
    context = None
    if protocol in ("SSL", "SASL_SSL"):  # the same CA and client certificate files as librdkafka's ssl.* settings
        ca = settings.kafka_ssl_ca_location
        context = ssl.create_default_context(cafile=str(ca) if ca else None)
        if settings.kafka_ssl_certificate_location:
            password = settings.kafka_ssl_key_password
            context.load_cert_chain(
                str(settings.kafka_ssl_certificate_location),
                str(settings.kafka_ssl_key_location),
                password.get_secret_value() if password else None,
            )
    if protocol == "SSL":
        return faust.SSLCredentials(context)
    if not (settings.kafka_sasl_username and settings.kafka_sasl_password):
        raise ValueError(f"kafka_security_protocol {protocol} needs kafka_sasl_username and kafka_sasl_password")
    return faust.SASLCredentials(
        username=settings.kafka_sasl_username,
        password=settings.kafka_sasl_password.get_secret_value(),
        mechanism=settings.kafka_sasl_mechanism or "PLAIN",
        ssl_context=context,
    )
