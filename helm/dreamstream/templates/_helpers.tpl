{{/* Names, labels and checks shared by every template. */}}

{{- define "dreamstream.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's base name; worker objects append "-streams" / "-consumers" (so 52 chars max). */}}
{{- define "dreamstream.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "dreamstream.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "dreamstream.selectorLabels" -}}
app.kubernetes.io/name: {{ include "dreamstream.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "dreamstream.labels" -}}
helm.sh/chart: {{ include "dreamstream.chart" . }}
{{ include "dreamstream.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: dreamstream
{{- end }}

{{/* Selector labels of one worker kind: (dict "root" $ "component" "streams") */}}
{{- define "dreamstream.componentSelectorLabels" -}}
{{ include "dreamstream.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "dreamstream.componentLabels" -}}
{{ include "dreamstream.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "dreamstream.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "dreamstream.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "dreamstream.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "dreamstream.homeDir" -}}/var/lib/dreamstream{{- end }}

{{/*
Checks values.schema.json cannot express. Included by every worker template, so a bad
combination fails the whole render with one clear message.
*/}}
{{- define "dreamstream.validate" -}}
{{- $partitions := int .Values.topics.partitions }}
{{- range $component := list "streams" "consumers" }}
{{- $replicas := int (index $.Values $component).replicas }}
{{- if gt $replicas $partitions }}
{{- fail (printf "%s.replicas (%d) must not exceed topics.partitions (%d): each partition goes to one member of the consumer group, so the extra %s workers would sit idle. Lower %s.replicas or raise topics.partitions (for new topics only)." $component $replicas $partitions $component $component) }}
{{- end }}
{{- end }}
{{- if eq (int .Values.streams.webPort) (int .Values.metrics.port) }}
{{- fail (printf "streams.webPort and metrics.port are both %d: give Faust's web server another port" (int .Values.metrics.port)) }}
{{- end }}
{{- if and .Values.kafka.sasl.passwordSecret.name (not .Values.kafka.sasl.mechanism) }}
{{- fail "kafka.sasl.passwordSecret is set but kafka.sasl.mechanism is empty: set the SASL mechanism (e.g. SCRAM-SHA-512)" }}
{{- end }}
{{- if and .Values.kafka.sasl.mechanism (not (hasPrefix "SASL_" .Values.kafka.securityProtocol)) }}
{{- fail (printf "kafka.sasl.mechanism is set but kafka.securityProtocol is %s: use SASL_SSL or SASL_PLAINTEXT" .Values.kafka.securityProtocol) }}
{{- end }}
{{- $tls := .Values.kafka.tls }}
{{- if and (or $tls.caSecret.name $tls.clientCertSecret.name) (not (has .Values.kafka.securityProtocol (list "SSL" "SASL_SSL"))) }}
{{- fail (printf "kafka.tls is set but kafka.securityProtocol is %s: use SSL or SASL_SSL" .Values.kafka.securityProtocol) }}
{{- end }}
{{- if and $tls.keyPasswordSecret.name (not $tls.clientCertSecret.name) }}
{{- fail "kafka.tls.keyPasswordSecret is set without kafka.tls.clientCertSecret" }}
{{- end }}
{{- if and .Values.api.enabled (not .Values.api.tokenSecret.name) }}
{{- fail "api.enabled needs api.tokenSecret: the API listens on the pod network, so every request must carry a token" }}
{{- end }}
{{- if and .Values.api.enabled (eq (int .Values.api.port) (int .Values.metrics.port)) }}
{{- fail (printf "api.port and metrics.port are both %d" (int .Values.api.port)) }}
{{- end }}
{{- $keda := .Values.autoscaling.keda }}
{{- if $keda.enabled }}
{{- if not $keda.prometheusServer }}
{{- fail "autoscaling.keda.enabled needs autoscaling.keda.prometheusServer (where dreamstream_consumer_lag is scraped)" }}
{{- end }}
{{- if gt (int $keda.maxReplicas) (int .Values.topics.partitions) }}
{{- fail (printf "autoscaling.keda.maxReplicas (%d) must not exceed topics.partitions (%d)" (int $keda.maxReplicas) (int .Values.topics.partitions)) }}
{{- end }}
{{- if gt (int $keda.minReplicas) (int $keda.maxReplicas) }}
{{- fail "autoscaling.keda.minReplicas must not exceed autoscaling.keda.maxReplicas" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "dreamstream.tlsDir" -}}/etc/dreamstream/kafka-tls{{- end }}

{{/* Kafka TLS files as settings (paths only; the files come from Secrets). */}}
{{- define "dreamstream.tlsSettings" -}}
{{- $tls := .Values.kafka.tls }}
{{- if $tls.caSecret.name }}
DREAMSTREAM_KAFKA_SSL_CA_LOCATION: {{ printf "%s/ca/%s" (include "dreamstream.tlsDir" .) $tls.caSecret.key | quote }}
{{- end }}
{{- if $tls.clientCertSecret.name }}
DREAMSTREAM_KAFKA_SSL_CERTIFICATE_LOCATION: {{ printf "%s/client/%s" (include "dreamstream.tlsDir" .) $tls.clientCertSecret.certKey | quote }}
DREAMSTREAM_KAFKA_SSL_KEY_LOCATION: {{ printf "%s/client/%s" (include "dreamstream.tlsDir" .) $tls.clientCertSecret.keyKey | quote }}
{{- end }}
{{- end }}

{{/* Volume mounts every container shares: scratch, home, and the Kafka TLS files when set. */}}
{{- define "dreamstream.volumeMounts" -}}
- {name: tmp, mountPath: /tmp}
- {name: home, mountPath: {{ include "dreamstream.homeDir" . }}}
{{- if .Values.kafka.tls.caSecret.name }}
- {name: kafka-ca, mountPath: {{ include "dreamstream.tlsDir" . }}/ca, readOnly: true}
{{- end }}
{{- if .Values.kafka.tls.clientCertSecret.name }}
- {name: kafka-client, mountPath: {{ include "dreamstream.tlsDir" . }}/client, readOnly: true}
{{- end }}
{{- end }}

{{- define "dreamstream.volumes" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.storage.tmpSizeLimit }}
- name: home
  emptyDir:
    sizeLimit: {{ .Values.storage.homeSizeLimit }}
{{- with .Values.kafka.tls.caSecret }}
{{- if .name }}
- name: kafka-ca
  secret:
    secretName: {{ .name | quote }}
    items: [{key: {{ .key | quote }}, path: {{ .key | quote }}}]
    defaultMode: 0440
{{- end }}
{{- end }}
{{- with .Values.kafka.tls.clientCertSecret }}
{{- if .name }}
- name: kafka-client
  secret:
    secretName: {{ .name | quote }}
    items:
      - {key: {{ .certKey | quote }}, path: {{ .certKey | quote }}}
      - {key: {{ .keyKey | quote }}, path: {{ .keyKey | quote }}}
    defaultMode: 0440
{{- end }}
{{- end }}
{{- end }}

{{/* A secretKeyRef env var when the reference is set: (dict "env" "NAME" "ref" .Values.x.secret) */}}
{{- define "dreamstream.secretEnv" -}}
{{- if .ref.name }}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ .ref.name | quote }}
      key: {{ .ref.key | quote }}
{{- end }}
{{- end }}

{{/* Container env shared by the workers and the topic init container: secrets by reference only. */}}
{{- define "dreamstream.env" -}}
- name: HOME
  value: /tmp
- name: PYTHONDONTWRITEBYTECODE
  value: "1"
{{- include "dreamstream.secretEnv" (dict "env" "DREAMSTREAM_KAFKA_SASL_PASSWORD" "ref" .Values.kafka.sasl.passwordSecret) }}
{{- include "dreamstream.secretEnv" (dict "env" "DREAMSTREAM_QDRANT_API_KEY" "ref" .Values.qdrant.apiKeySecret) }}
{{- include "dreamstream.secretEnv" (dict "env" "DREAMSTREAM_LLM_API_KEY" "ref" .Values.llm.apiKeySecret) }}
{{- include "dreamstream.secretEnv" (dict "env" "DREAMSTREAM_KAFKA_SSL_KEY_PASSWORD" "ref" .Values.kafka.tls.keyPasswordSecret) }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}
