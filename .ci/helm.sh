#!/usr/bin/env bash
# Lints and renders the Helm chart in deploy/helm/jetcompact offline, then
# runs the strict manifest tests in deploy/manifesttest (a separate module,
# which the root module's `go test ./...` does not enter).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

HELM_VERSION=v3.22.0
chart=deploy/helm/jetcompact
# A helm built by `go install` tells templates it talks to Kubernetes 1.20,
# below the chart's kubeVersion; render for a current cluster instead.
kube_version=1.34.0

# helm: the one on PATH, else built from the Go module proxy (no binary
# download is possible here). `go install` puts it in GOBIN, or GOPATH/bin.
gobin="$(go env GOBIN)"
[ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
export PATH="$PATH:$gobin"
if ! command -v helm >/dev/null 2>&1; then
	echo "installing helm ${HELM_VERSION} with go install (about 80 s the first time)"
	go install "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
fi
helm version --short

# The chart declares the official NATS chart as an optional dependency.
# helm lint and helm template refuse a chart whose declared dependency is not
# vendored under charts/, even when its condition (nats.enabled) is false,
# and `helm dependency update` needs the network. So lint and render a copy
# without the dependencies block, which Chart.yaml keeps last for this. The
# copy still holds every template and value this chart owns.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$chart" "$work/jetcompact"
sed -i '/^dependencies:/,$d' "$work/jetcompact/Chart.yaml"
rm -f "$work/jetcompact/Chart.lock"
grep -q '^dependencies:' "$chart/Chart.yaml" || { echo "$chart/Chart.yaml: the nats dependency is gone"; exit 1; }

mkdir -p "$work/rendered"
for values in values.yaml ci/values-production.yaml ci/values-embedded.yaml; do
	name="$(basename "$values" .yaml)"
	echo "--- ${values}"
	helm lint --strict --kube-version "$kube_version" "$work/jetcompact" -f "$work/jetcompact/$values"
	helm template jc "$work/jetcompact" --namespace jetcompact --kube-version "$kube_version" \
		-f "$work/jetcompact/$values" >"$work/rendered/$name.yaml"
	echo "rendered $(grep -c '^kind:' "$work/rendered/$name.yaml") manifests"
done

cd deploy/manifesttest
go vet ./...
test -z "$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
go test -count=1 ./...
echo "helm.sh: done in $((SECONDS - start)) s"
