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
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}
