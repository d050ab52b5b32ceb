{{- define "tacker.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "tacker.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "tacker.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "tacker.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "tacker.secretName" -}}
{{ .Values.existingSecret | default (printf "%s-secrets" (include "tacker.fullname" .)) }}
{{- end -}}

{{/* Secrets as environment variables, common to every process. */}}
{{- define "tacker.secretEnv" -}}
- name: TACKER__DATABASE__URL
  valueFrom: { secretKeyRef: { name: {{ include "tacker.secretName" . }}, key: database-url } }
- name: TACKER__BUS__URL
  valueFrom: { secretKeyRef: { name: {{ include "tacker.secretName" . }}, key: bus-url } }
- name: TACKER__STORAGE__S3_ACCESS_KEY_ID
  valueFrom: { secretKeyRef: { name: {{ include "tacker.secretName" . }}, key: s3-access-key-id, optional: true } }
- name: TACKER__STORAGE__S3_SECRET_ACCESS_KEY
  valueFrom: { secretKeyRef: { name: {{ include "tacker.secretName" . }}, key: s3-secret-access-key, optional: true } }
- name: TACKER__LCM__NFVO_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ include "tacker.secretName" . }}, key: nfvo-password, optional: true } }
- name: TACKER__SECRETS__KEYS
  valueFrom: { secretKeyRef: { name: {{ include "tacker.secretName" . }}, key: sealing-keys } }
- name: TACKER__AUTH__KEYSTONE_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ include "tacker.secretName" . }}, key: keystone-password, optional: true } }
- name: TACKER__AUTH__INTROSPECTION_CLIENT_SECRET
  valueFrom: { secretKeyRef: { name: {{ include "tacker.secretName" . }}, key: introspection-client-secret, optional: true } }
{{- end -}}

{{- define "tacker.pod" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets: {{ toYaml . | nindent 2 }}
{{- end }}
securityContext: {{ toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.nodeSelector }}
nodeSelector: {{ toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations: {{ toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity: {{ toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
