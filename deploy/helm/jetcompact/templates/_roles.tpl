{{/*
Per-role NATS users, as jetstream.RolePermissions defines them (see
jetstream/permissions.go; deploy/manifesttest checks that this equals what
`worker --print-permissions` prints for the rendered config). Lists are
space-separated subjects (subjects hold no spaces).
*/}}
{{- define "jetcompact.subj.read" -}}
{{- $a := "$JS.API." -}}
{{ $a }}STREAM.INFO.{{ . }} {{ $a }}DIRECT.GET.{{ . }} {{ $a }}DIRECT.GET.{{ . }}.> {{ $a }}STREAM.MSG.GET.{{ . }}
{{- end -}}

{{- define "jetcompact.subj.watch" -}}
{{- $a := "$JS.API." -}}
{{ $a }}CONSUMER.CREATE.{{ . }} {{ $a }}CONSUMER.CREATE.{{ . }}.> {{ $a }}CONSUMER.DELETE.{{ . }}.> {{ $a }}CONSUMER.INFO.{{ . }}.> {{ $a }}CONSUMER.MSG.NEXT.{{ . }}.> $JS.FC.{{ . }}.>
{{- end -}}

{{- define "jetcompact.subj.objRead" -}}
{{ include "jetcompact.subj.read" (printf "OBJ_%s" .) }} {{ include "jetcompact.subj.watch" (printf "OBJ_%s" .) }}
{{- end -}}

{{- define "jetcompact.subj.objWrite" -}}
{{ include "jetcompact.subj.objRead" . }} $O.{{ . }}.> $JS.API.STREAM.PURGE.OBJ_{{ . }}
{{- end -}}

{{/* dict "stream" S "consumer" C */}}
{{- define "jetcompact.subj.consume" -}}
$JS.API.CONSUMER.INFO.{{ .stream }}.{{ .consumer }} $JS.API.CONSUMER.MSG.NEXT.{{ .stream }}.{{ .consumer }} $JS.ACK.{{ .stream }}.{{ .consumer }}.>
{{- end -}}

{{/* Create or update a KV bucket, read and write it (the LLM cache). */}}
{{- define "jetcompact.subj.kv" -}}
{{- $a := "$JS.API." -}}
{{ $a }}INFO {{ $a }}STREAM.CREATE.KV_{{ . }} {{ $a }}STREAM.UPDATE.KV_{{ . }} {{ $a }}STREAM.INFO.KV_{{ . }} {{ $a }}DIRECT.GET.KV_{{ . }}.> {{ $a }}STREAM.MSG.GET.KV_{{ . }} $KV.{{ . }}.>
{{- end -}}

{{/* The fleet's tasks: config.fleet.tasks, else the product's default. */}}
{{- define "jetcompact.fleetTasks" -}}
{{- $fleet := default dict .Values.config.fleet -}}
{{- if hasKey $fleet "tasks" -}}
{{- toYaml (default list $fleet.tasks) -}}
{{- else -}}
{{- toYaml (list "debate" "evidence" "session" "meeting" "decide") -}}
{{- end -}}
{{- end -}}

{{/*
Every role: {"<role>": {user, passwordEnv, inbox, publish, subscribe}}.
Role names: publisher, setup, "segment <first stage>", "task <name>".
*/}}
{{- define "jetcompact.rolePermissions" -}}
{{- $p := include "jetcompact.prefix" . -}}
{{- $P := $p | upper | replace "-" "_" -}}
{{- $work := printf "%s_WORK" $P -}}
{{- $orig := printf "%s_ORIGINALS" $P -}}
{{- $res := printf "%s_RESULTS" $P -}}
{{- $dead := printf "%s_DEAD" $P -}}
{{- $blobs := printf "%s_BLOBS" $P -}}
{{- $oblobs := printf "%s_ORIGINAL_BLOBS" $P -}}
{{- $intake := printf "%s_intake" $p -}}
{{- $llmCache := include "jetcompact.subj.kv" (printf "%s_llm_cache" $p) -}}
{{- $api := "$JS.API." -}}
{{- $worker := list (include "jetcompact.subj.read" $orig) (include "jetcompact.subj.read" $res) (printf "%sSTREAM.INFO.%s" $api $work) (include "jetcompact.subj.objWrite" $blobs) (include "jetcompact.subj.objRead" $oblobs) | join " " -}}
{{- /* the micro service every segment serves: submit a document, wait for its result */ -}}
{{- $servePublish := list (printf "%s.original.*" $p) (printf "%sCONSUMER.INFO.%s.%s" $api $orig $intake) (include "jetcompact.subj.watch" $res) (include "jetcompact.subj.objWrite" $oblobs) | join " " -}}
{{- $serveSubscribe := list (printf "%s.compact" $p) (printf "%s.get" $p) "$SRV.*" "$SRV.*.jetcompact" "$SRV.*.jetcompact.*" -}}
{{- $tasks := include "jetcompact.fleetTasks" . | fromYamlArray -}}
{{- $segments := include "jetcompact.fleetSegments" . | fromYamlArray -}}
{{- $roles := dict -}}
{{- /* publisher */ -}}
{{- $pub := list (printf "%s.original.*" $p) (printf "%s.work.%s" $p (first (first $segments))) (printf "%s.compact" $p) (printf "%s.get" $p) -}}
{{- if $tasks -}}
{{- $pub = concat $pub (list (printf "%s.original.task.*" $p) (printf "%s.work.task.*" $p)) -}}
{{- end -}}
{{- $pub = append $pub (list (include "jetcompact.subj.read" $orig) (include "jetcompact.subj.read" $res) (include "jetcompact.subj.read" $dead) (include "jetcompact.subj.watch" $res) (printf "%sCONSUMER.INFO.%s.%s" $api $orig $intake) (include "jetcompact.subj.objWrite" $oblobs) (include "jetcompact.subj.objRead" $blobs) | join " ") -}}
{{- $_ := set $roles "publisher" (dict "name" "publisher" "publish" (join " " $pub)) -}}
{{- /* one per segment */ -}}
{{- range $i, $seg := $segments -}}
{{- $first := first $seg -}}
{{- $next := list (printf "%s.result.*" $p) -}}
{{- if ne (last $seg) "guard" -}}
{{- $next = list (printf "%s.work.%s" $p (first (index $segments (add1 $i)))) (printf "%s.work.guard" $p) -}}
{{- end -}}
{{- $perms := concat $next (list (printf "%s.dead.%s" $p $first) (include "jetcompact.subj.consume" (dict "stream" $work "consumer" (printf "%s_%s" $p $first))) $servePublish $worker) -}}
{{- if eq $i 0 -}}
{{- $perms = append $perms (include "jetcompact.subj.consume" (dict "stream" $orig "consumer" $intake)) -}}
{{- end -}}
{{- if has "llm_summary" $seg -}}
{{- $perms = append $perms $llmCache -}}
{{- end -}}
{{- $_ := set $roles (printf "segment %s" $first) (dict "name" $first "publish" (join " " $perms) "serve" true) -}}
{{- end -}}
{{- /* one per task; tasks keep transcript sessions (stream and state bucket) */ -}}
{{- $sessStream := printf "%s_SESSIONS" $P -}}
{{- $sessions := list (printf "%s.session.>" $p) (printf "%sSTREAM.CREATE.%s" $api $sessStream) (printf "%sSTREAM.UPDATE.%s" $api $sessStream) (include "jetcompact.subj.read" $sessStream) (include "jetcompact.subj.kv" (printf "%s_SESSION_STATE" $P)) | join " " -}}
{{- range $tasks -}}
{{- $perms := list (printf "%s.result.*" $p) (printf "%s.dead.task_%s" $p .) (include "jetcompact.subj.consume" (dict "stream" $work "consumer" (printf "%s_task_%s" $p .))) $worker $llmCache $sessions -}}
{{- $_ := set $roles (printf "task %s" .) (dict "name" (printf "task_%s" .) "publish" (join " " $perms)) -}}
{{- end -}}
{{- /* setup: the topology job */ -}}
{{- $setup := list (printf "%sINFO" $api) (printf "%sSTREAM.NAMES" $api) (printf "%sSTREAM.LIST" $api) -}}
{{- range list $work $orig $res $dead (printf "OBJ_%s" $blobs) (printf "OBJ_%s" $oblobs) -}}
{{- $setup = concat $setup (list (printf "%sSTREAM.*.%s" $api .) (printf "%sCONSUMER.*.%s" $api .) (printf "%sCONSUMER.*.%s.>" $api .) (printf "%sCONSUMER.*.*.%s.>" $api .)) -}}
{{- end -}}
{{- $setup = concat $setup (list (printf "$O.%s_BLOBS.>" $P) (printf "$O.%s_ORIGINAL_BLOBS.>" $P)) -}}
{{- $_ := set $roles "setup" (dict "name" "setup" "publish" (join " " $setup)) -}}
{{- /* user, password variable, inbox; lists sorted */ -}}
{{- $out := dict -}}
{{- range $role, $r := $roles -}}
{{- $inbox := printf "_INBOX_%s_%s" $p $r.name -}}
{{- $user := printf "%s-%s" $p (replace " " "-" $role) -}}
{{- $env := printf "%s %s" $p $role | replace "-" "_" | replace " " "_" | upper | printf "%s_PASSWORD" -}}
{{- $_ := set $out $role (dict "user" $user "passwordEnv" $env "inbox" $inbox "publish" (splitList " " $r.publish | sortAlpha | uniq) "subscribe" (list (printf "%s.>" $inbox))) -}}
{{- if $r.serve -}}
{{- $_ := set (index $out $role) "subscribe" (concat (list (printf "%s.>" $inbox)) $serveSubscribe) -}}
{{- $_ := set (index $out $role) "allowResponses" true -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/*
The nats-server authorization block for these roles, in the format of
`worker --print-permissions`: passwords are read from the server's
environment ($<ROLE>_PASSWORD).
*/}}
{{- define "jetcompact.authorizationConf" -}}
{{- $roles := include "jetcompact.rolePermissions" . | fromYaml -}}
# jetcompact fleet {{ include "jetcompact.prefix" . | quote }}: one NATS user per role (jetstream.RolePermissions).
# Each role connects with --nats-user <user> and --nats-inbox-prefix <inbox>.
authorization {
  users = [
{{- range $role := keys $roles | sortAlpha }}
{{- $r := index $roles $role }}
    # {{ $role }}; inbox {{ $r.inbox }}
    { user: {{ $r.user | quote }}, password: ${{ $r.passwordEnv }}, permissions: {
        publish: { allow: [{{ range $i, $s := $r.publish }}{{ if $i }}, {{ end }}{{ $s | quote }}{{ end }}] }
        subscribe: { allow: [{{ range $i, $s := $r.subscribe }}{{ if $i }}, {{ end }}{{ $s | quote }}{{ end }}] }
{{- if $r.allowResponses }}
        allow_responses: true
{{- end }}
      } }
{{- end }}
  ]
}
{{- end -}}
