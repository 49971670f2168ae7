{{/*
Names and labels.
*/}}
{{- define "jetcompact.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "jetcompact.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "jetcompact.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "jetcompact.selectorLabels" -}}
app.kubernetes.io/name: {{ include "jetcompact.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "jetcompact.labels" -}}
helm.sh/chart: {{ include "jetcompact.chart" . }}
{{ include "jetcompact.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: jetcompact
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "jetcompact.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "jetcompact.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "jetcompact.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}
{{- end -}}

{{/*
The pipeline: stage keys in the order code runs them. Segments must list
exactly these, in this order.
*/}}
{{- define "jetcompact.stageOrder" -}}
structured dedup whitespace log_dedup near_dup number_normalize stopwords keywords headtail redact llm_summary guard
{{- end -}}

{{/* JetStream names from config.fleet.prefix. */}}
{{- define "jetcompact.prefix" -}}
{{- required "config.fleet.prefix is required" .Values.config.fleet.prefix -}}
{{- end -}}

{{- define "jetcompact.workStream" -}}
{{- printf "%s_WORK" (include "jetcompact.prefix" . | upper | replace "-" "_") -}}
{{- end -}}

{{- define "jetcompact.originalsStream" -}}
{{- printf "%s_ORIGINALS" (include "jetcompact.prefix" . | upper | replace "-" "_") -}}
{{- end -}}

{{/* The first segment's consumer on the originals stream: new documents. */}}
{{- define "jetcompact.intakeConsumer" -}}
{{- printf "%s_intake" (include "jetcompact.prefix" .) -}}
{{- end -}}

{{/* Durable consumer of a segment: dict "root" $ "stages" list. */}}
{{- define "jetcompact.consumer" -}}
{{- printf "%s_%s" (include "jetcompact.prefix" .root) (first .stages) -}}
{{- end -}}

{{/* Merge segmentDefaults under one segment entry: dict "root" $ "segment" entry. */}}
{{- define "jetcompact.segment" -}}
{{- toYaml (mergeOverwrite (deepCopy .root.Values.segmentDefaults) (deepCopy .segment)) -}}
{{- end -}}

{{/* The stage lists of the fleet, as config.fleet.segments. */}}
{{- define "jetcompact.fleetSegments" -}}
{{- $out := list -}}
{{- if .Values.embedded.enabled -}}
{{- $out = append $out (splitList " " (include "jetcompact.stageOrder" .)) -}}
{{- else -}}
{{- range .Values.segments -}}
{{- $out = append $out .stages -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* The worker's config file. */}}
{{- define "jetcompact.configFile" -}}
{{- $cfg := deepCopy .Values.config -}}
{{- $fleet := deepCopy (default dict $cfg.fleet) -}}
{{- $_ := set $fleet "segments" (include "jetcompact.fleetSegments" . | fromYamlArray) -}}
{{- if not .Values.embedded.enabled -}}
{{- /* metrics label each segment with its chart name (fleet.segment_names) */ -}}
{{- $names := dict -}}
{{- range .Values.segments -}}
{{- $_ := set $names (first .stages) (trunc 40 .name) -}}
{{- end -}}
{{- $_ := set $fleet "segment_names" (merge (deepCopy (default dict $fleet.segment_names)) $names) -}}
{{- end -}}
{{- $_ := set $cfg "fleet" $fleet -}}
{{- toYaml $cfg -}}
{{- end -}}

{{- define "jetcompact.natsURL" -}}
{{- .Values.nats.url -}}
{{- end -}}

{{- define "jetcompact.natsMonitoringEndpoint" -}}
{{- .Values.nats.monitoringEndpoint -}}
{{- end -}}

{{/*
Secret names; empty when the secret is not configured. Each is either the
user's existingSecret or one this chart creates from an inline value.
*/}}
{{- define "jetcompact.llmSecret" -}}
{{- if .Values.llm.existingSecret -}}
{{- .Values.llm.existingSecret -}}
{{- else if .Values.llm.apiKey -}}
{{- printf "%s-llm" (include "jetcompact.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "jetcompact.credsSecret" -}}
{{- $a := .Values.nats.auth.creds -}}
{{- if $a.existingSecret -}}
{{- $a.existingSecret -}}
{{- else if $a.content -}}
{{- printf "%s-nats-creds" (include "jetcompact.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "jetcompact.userSecret" -}}
{{- $a := .Values.nats.auth.userPassword -}}
{{- if $a.existingSecret -}}
{{- $a.existingSecret -}}
{{- else if or $a.username $a.password -}}
{{- printf "%s-nats-user" (include "jetcompact.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "jetcompact.tokenSecret" -}}
{{- $a := .Values.nats.auth.token -}}
{{- if $a.existingSecret -}}
{{- $a.existingSecret -}}
{{- else if $a.value -}}
{{- printf "%s-nats-token" (include "jetcompact.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "jetcompact.tlsSecret" -}}
{{- $t := .Values.nats.tls -}}
{{- if $t.enabled -}}
{{- if $t.existingSecret -}}
{{- $t.existingSecret -}}
{{- else -}}
{{- printf "%s-nats-tls" (include "jetcompact.fullname" .) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* "true" when the LLM is in use: an LLM mode, llm_summary on, or a key given. */ -}}
{{- define "jetcompact.llmInUse" -}}
{{- $c := .Values.config.pipeline -}}
{{- $node := dig "nodes" "llm_summary" "enabled" false $c -}}
{{- if or (has (toString $c.mode) (list "llm" "hybrid")) $node (include "jetcompact.llmSecret" .) -}}true{{- end -}}
{{- end -}}

{{- define "jetcompact.nkeySecret" -}}
{{- .Values.nats.auth.nkey.existingSecret -}}
{{- end -}}

{{- define "jetcompact.tlsClientCert" -}}
{{- $t := .Values.nats.tls -}}
{{- if and $t.enabled $t.certKey $t.keyKey (or $t.existingSecret $t.cert) -}}true{{- end -}}
{{- end -}}

{{/*
Checks that fail the render with a message naming the value to fix.
*/}}
{{- define "jetcompact.validate" -}}
{{- $order := splitList " " (include "jetcompact.stageOrder" .) -}}
{{- if .Values.config.fleet.segments -}}
{{- fail "config.fleet.segments is generated from `segments`; do not set it" -}}
{{- end -}}
{{- if not (has (int .Values.config.fleet.replicas) (list 1 3)) -}}
{{- fail (printf "config.fleet.replicas must be 1 or 3, got %v" .Values.config.fleet.replicas) -}}
{{- end -}}
{{- if .Values.embedded.enabled -}}
{{- if ne (int .Values.config.fleet.replicas) 1 -}}
{{- fail "embedded.enabled has a single server: config.fleet.replicas must be 1" -}}
{{- end -}}
{{- if or (include "jetcompact.credsSecret" .) .Values.nats.tls.enabled -}}
{{- fail "embedded.enabled: the embedded server takes no nats.auth.creds or nats.tls settings (use nats.auth.token, userPassword or nkey, and embedded.tls)" -}}
{{- end -}}
{{- if not (or (include "jetcompact.userSecret" .) (include "jetcompact.tokenSecret" .) (include "jetcompact.nkeySecret" .) .Values.embedded.allowUnauthenticated) -}}
{{- fail "embedded.enabled: set nats.auth.token, nats.auth.userPassword or nats.auth.nkey (the embedded server requires what the worker connects with), or embedded.allowUnauthenticated=true" -}}
{{- end -}}
{{- if and .Values.networkPolicy.enabled (not .Values.networkPolicy.ingress.natsFrom) (not .Values.networkPolicy.ingress.allowAnyClient) -}}
{{- fail "embedded.enabled: set networkPolicy.ingress.natsFrom to the publishers allowed to reach NATS, or networkPolicy.ingress.allowAnyClient=true" -}}
{{- end -}}
{{- else -}}
{{- if not (include "jetcompact.natsURL" .) -}}
{{- fail "set nats.url (an external NATS, such as the official NATS chart) or embedded.enabled=true" -}}
{{- end -}}
{{- if not .Values.segments -}}
{{- fail "segments must not be empty" -}}
{{- end -}}
{{- $all := list -}}
{{- $names := list -}}
{{- $fullname := include "jetcompact.fullname" . -}}
{{- range $i, $s := .Values.segments -}}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" (toString $s.name)) -}}
{{- fail (printf "segments[%d].name %q must be a DNS label (lower-case letters, digits, '-')" $i (toString $s.name)) -}}
{{- end -}}
{{- if gt (len (printf "%s-%s" $fullname $s.name)) 63 -}}
{{- fail (printf "segments[%d]: %s-%s is longer than 63 characters" $i $fullname $s.name) -}}
{{- end -}}
{{- if has $s.name $names -}}
{{- fail (printf "segments[%d].name %q is used twice" $i $s.name) -}}
{{- end -}}
{{- $names = append $names $s.name -}}
{{- if not $s.stages -}}
{{- fail (printf "segments[%d] (%s) has no stages" $i $s.name) -}}
{{- end -}}
{{- range $s.stages -}}
{{- if not (has . $order) -}}
{{- fail (printf "segments[%d] (%s): unknown stage %q; stages are: %s" $i $s.name . (join " " $order)) -}}
{{- end -}}
{{- $all = append $all . -}}
{{- end -}}
{{- $seg := include "jetcompact.segment" (dict "root" $ "segment" $s) | fromYaml -}}
{{- if and $seg.autoscaling.hpa.enabled $seg.autoscaling.keda.enabled -}}
{{- fail (printf "segments[%d] (%s): enable at most one of autoscaling.hpa and autoscaling.keda" $i $s.name) -}}
{{- end -}}
{{- if and $seg.autoscaling.keda.enabled (not (include "jetcompact.natsMonitoringEndpoint" $)) -}}
{{- fail (printf "segments[%d] (%s): autoscaling.keda needs nats.monitoringEndpoint" $i $s.name) -}}
{{- end -}}
{{- end -}}
{{- if ne (join " " $all) (join " " $order) -}}
{{- fail (printf "segments must list every stage once, in order (%s); they list: %s" (join " " $order) (join " " $all)) -}}
{{- end -}}
{{- if ne (join " " (last .Values.segments).stages) "guard" -}}
{{- fail "the last segment must be [guard] alone" -}}
{{- end -}}
{{- end -}}
{{- if .Values.nats.roles.enabled -}}
{{- if .Values.embedded.enabled -}}
{{- if not .Values.nats.roles.existingSecret -}}
{{- fail "nats.roles with embedded.enabled: set nats.roles.existingSecret (every role's password, which the embedded server reads)" -}}
{{- end -}}
{{- if or (include "jetcompact.tokenSecret" .) (not (or (include "jetcompact.userSecret" .) (include "jetcompact.nkeySecret" .))) -}}
{{- fail "nats.roles with embedded.enabled: the worker keeps a full-access user of its own beside the roles: set nats.auth.userPassword or nats.auth.nkey (a token cannot be combined with users)" -}}
{{- end -}}
{{- else -}}
{{- if or (include "jetcompact.credsSecret" .) (include "jetcompact.userSecret" .) (include "jetcompact.tokenSecret" .) (include "jetcompact.nkeySecret" .) -}}
{{- fail "nats.roles: each role connects as its own user; unset nats.auth (creds, userPassword, token, nkey)" -}}
{{- end -}}
{{- if and .Values.topology.enabled (not .Values.nats.roles.existingSecret) -}}
{{- fail "nats.roles: set nats.roles.existingSecret (the setup role's password, for the topology Job, and the segments' unless they name a natsSecret)" -}}
{{- end -}}
{{- range .Values.segments -}}
{{- if not (or .natsSecret $.Values.nats.roles.existingSecret) -}}
{{- fail (printf "nats.roles: segment %s has no credentials: set its natsSecret or nats.roles.existingSecret" .name) -}}
{{- end -}}
{{- if .tasks -}}
{{- fail (printf "nats.roles: segment %s serves tasks, but a worker connects as one user and each task is a role of its own; set its tasks to [] (tasks need the full-access user)" .name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $auth := 0 -}}
{{- if include "jetcompact.nkeySecret" . }}{{ $auth = add1 $auth }}{{ end -}}
{{- if include "jetcompact.credsSecret" . }}{{ $auth = add1 $auth }}{{ end -}}
{{- if include "jetcompact.userSecret" . }}{{ $auth = add1 $auth }}{{ end -}}
{{- if include "jetcompact.tokenSecret" . }}{{ $auth = add1 $auth }}{{ end -}}
{{- if gt $auth 1 -}}
{{- fail "nats.auth: configure at most one of creds, userPassword, token and nkey" -}}
{{- end -}}
{{- $np := .Values.networkPolicy -}}
{{- if and $np.enabled $np.egress.llm.enabled (include "jetcompact.llmInUse" .) (not $np.egress.llm.cidrs) -}}
{{- fail "networkPolicy.egress.llm.cidrs: the LLM is in use; list the CIDRs of its endpoint (or set networkPolicy.egress.llm.enabled=false and add your own rule)" -}}
{{- end -}}
{{- $t := .Values.nats.tls -}}
{{- if and $t.enabled (not $t.existingSecret) -}}
{{- if not $t.ca -}}
{{- fail "nats.tls.enabled: set nats.tls.existingSecret or nats.tls.ca" -}}
{{- end -}}
{{- if ne (empty $t.cert) (empty $t.key) -}}
{{- fail "nats.tls: set both cert and key, or neither" -}}
{{- end -}}
{{- end -}}
{{- if lt (int .Values.drainTimeoutSeconds) 1 -}}
{{- fail "drainTimeoutSeconds must be at least 1" -}}
{{- end -}}
{{- end -}}

{{/*
Pod template parts shared by the segment Deployments, the embedded
Deployment and the topology Job. Argument: dict "root" $ "llm" bool
"configMap" name.
*/}}
{{- define "jetcompact.connectionArgs" -}}
{{- if include "jetcompact.credsSecret" . }}
- --nats-creds=/var/run/secrets/jetcompact/nats/nats.creds
{{- end }}
{{- if include "jetcompact.nkeySecret" . }}
- --nats-nkey=/var/run/secrets/jetcompact/nkey/nats.nk
{{- end }}
{{- if include "jetcompact.tlsSecret" . }}
- --tls-ca=/var/run/secrets/jetcompact/tls/ca.crt
{{- if include "jetcompact.tlsClientCert" . }}
- --tls-cert=/var/run/secrets/jetcompact/tls/tls.crt
- --tls-key=/var/run/secrets/jetcompact/tls/tls.key
{{- end }}
{{- end }}
{{- end -}}

{{- define "jetcompact.env" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
{{- if not $v.embedded.enabled }}
- name: NATS_URL
  value: {{ include "jetcompact.natsURL" $root | quote }}
{{- end }}
{{- with .role }}
{{- $r := index (include "jetcompact.rolePermissions" $root | fromYaml) .name }}
- name: NATS_USER
  value: {{ $r.user | quote }}
- name: NATS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ $r.passwordEnv }}
- name: NATS_INBOX_PREFIX
  value: {{ $r.inbox | quote }}
{{- end }}
{{- with include "jetcompact.userSecret" $root }}
- name: NATS_USER
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $v.nats.auth.userPassword.usernameKey }}
- name: NATS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $v.nats.auth.userPassword.passwordKey }}
{{- end }}
{{- with include "jetcompact.tokenSecret" $root }}
- name: NATS_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $v.nats.auth.token.key }}
{{- end }}
{{- if .llm }}
{{- with include "jetcompact.llmSecret" $root }}
- name: OPENAI_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $v.llm.existingSecretKey }}
{{- end }}
{{- end }}
{{- with $v.otel.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ $v.otel.protocol | quote }}
{{- end }}
{{- with $v.otel.resourceAttributes }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ . | quote }}
{{- end }}
{{- with $v.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "jetcompact.volumeMounts" -}}
- name: config
  mountPath: /etc/jetcompact
  readOnly: true
- name: tmp
  mountPath: /tmp
{{- if include "jetcompact.credsSecret" .root }}
- name: nats-creds
  mountPath: /var/run/secrets/jetcompact/nats
  readOnly: true
{{- end }}
{{- if include "jetcompact.tlsSecret" .root }}
- name: nats-tls
  mountPath: /var/run/secrets/jetcompact/tls
  readOnly: true
{{- end }}
{{- if include "jetcompact.nkeySecret" .root }}
- name: nats-nkey
  mountPath: /var/run/secrets/jetcompact/nkey
  readOnly: true
{{- end }}
{{- with .root.Values.extraVolumeMounts }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "jetcompact.volumes" -}}
{{- $v := .root.Values -}}
- name: config
  configMap:
    name: {{ .configMap }}
- name: tmp
  emptyDir:
    sizeLimit: {{ $v.tmpSizeLimit }}
{{- with include "jetcompact.credsSecret" .root }}
- name: nats-creds
  secret:
    secretName: {{ . }}
    defaultMode: 0440
    items:
      - key: {{ $v.nats.auth.creds.key }}
        path: nats.creds
{{- end }}
{{- with include "jetcompact.tlsSecret" .root }}
- name: nats-tls
  secret:
    secretName: {{ . }}
    defaultMode: 0440
    items:
      - key: {{ $v.nats.tls.caKey }}
        path: ca.crt
{{- if include "jetcompact.tlsClientCert" $.root }}
      - key: {{ $v.nats.tls.certKey }}
        path: tls.crt
      - key: {{ $v.nats.tls.keyKey }}
        path: tls.key
{{- end }}
{{- end }}
{{- with include "jetcompact.nkeySecret" .root }}
- name: nats-nkey
  secret:
    secretName: {{ . }}
    defaultMode: 0440
    items:
      - key: {{ $v.nats.auth.nkey.key }}
        path: nats.nk
{{- end }}
{{- with $v.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Pod-level fields common to every pod. */}}
{{- define "jetcompact.podCommon" -}}
{{- $v := .Values -}}
serviceAccountName: {{ include "jetcompact.serviceAccountName" . }}
automountServiceAccountToken: false
enableServiceLinks: false
securityContext:
  {{- toYaml $v.podSecurityContext | nindent 2 }}
{{- with $v.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- end -}}

{{- define "jetcompact.podAnnotations" -}}
checksum/config: {{ include "jetcompact.configFile" . | sha256sum }}
checksum/secrets: {{ include (print .Template.BasePath "/secrets.yaml") . | sha256sum }}
{{- if .Values.metrics.podAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .Values.httpPort | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- with .Values.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "jetcompact.probes" -}}
{{- $p := .Values.probes -}}
livenessProbe:
  httpGet:
    path: /healthz
    port: http
  initialDelaySeconds: {{ $p.liveness.initialDelaySeconds }}
  periodSeconds: {{ $p.liveness.periodSeconds }}
  timeoutSeconds: {{ $p.liveness.timeoutSeconds }}
  failureThreshold: {{ $p.liveness.failureThreshold }}
readinessProbe:
  httpGet:
    path: /readyz
    port: http
  initialDelaySeconds: {{ $p.readiness.initialDelaySeconds }}
  periodSeconds: {{ $p.readiness.periodSeconds }}
  timeoutSeconds: {{ $p.readiness.timeoutSeconds }}
  failureThreshold: {{ $p.readiness.failureThreshold }}
{{- end -}}

{{- define "jetcompact.commandArgs" -}}
{{- with .Values.image.command }}
command:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
