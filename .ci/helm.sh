#!/usr/bin/env bash
# Lints and renders the Helm chart in deploy/helm/jetcompact offline, then
# runs the strict manifest tests in deploy/manifesttest (a separate module,
# which the root module's `go test ./...` does not enter).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

HELM_VERSION=v3.22.0
chart=deploy/helm/jetcompact
# Kubernetes versions to lint and render for: the oldest and newest issue 18
# names, and the current one. (A helm built by `go install` would tell
# templates it talks to Kubernetes 1.20, below the chart's kubeVersion.)
kube_versions="1.29.0 1.33.0 1.34.0"

# helm: the one on PATH, else built from the Go module proxy (no binary
# download is possible here). `go install` puts it in GOBIN, or GOPATH/bin.
gobin="$(go env GOBIN)"
[ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
export PATH="$PATH:$gobin"
# helm's Makefile tells it, by -ldflags, which Kubernetes its client-go
# speaks (v3.22.0: client-go v0.37, Kubernetes 1.37); a plain `go install`
# leaves 1.20, below the chart's kubeVersion, so `helm template` without
# --kube-version would refuse the chart. Build it as the release is built.
install_helm() {
	echo "installing helm ${HELM_VERSION} with go install (about 80 s the first time)"
	local x="" pkg
	for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
		x="$x -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=37"
	done
	go install -ldflags "$x" "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
	hash -r
}
command -v helm >/dev/null 2>&1 || install_helm
helm version --short

# The chart has no dependencies: lint and render the directory itself,
# unedited, with helm's network and repository settings cut off.
if grep -q '^dependencies:' "$chart/Chart.yaml"; then
	echo "$chart/Chart.yaml declares dependencies; the chart must render offline"; exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
offline=(env HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 NO_PROXY= no_proxy=
	HELM_REPOSITORY_CONFIG="$work/repositories.yaml" HELM_REPOSITORY_CACHE="$work/cache"
	HELM_CACHE_HOME="$work/cache" HELM_CONFIG_HOME="$work/config" HELM_DATA_HOME="$work/data")

# As a user runs it: no flags, no network.
if ! "${offline[@]}" helm template "$chart" >"$work/plain.yaml" 2>"$work/plain.err"; then
	if grep -q "incompatible with Kubernetes v1.20" "$work/plain.err" && [ "$(command -v helm)" = "$gobin/helm" ]; then
		install_helm # an older helm.sh built it without the Kubernetes version
		"${offline[@]}" helm template "$chart" >"$work/plain.yaml"
	else
		cat "$work/plain.err"; exit 1
	fi
fi
echo "helm template $chart: $(grep -c '^kind:' "$work/plain.yaml") manifests, offline, no flags"

for kube in $kube_versions; do
	for values in values.yaml ci/values-production.yaml ci/values-embedded.yaml ci/values-roles.yaml; do
		name="$(basename "$values" .yaml)"
		echo "--- Kubernetes ${kube}, ${values}"
		"${offline[@]}" helm lint --strict --kube-version "$kube" "$chart" -f "$chart/$values"
		out="$work/$name-$kube.yaml"
		"${offline[@]}" helm template jc "$chart" --namespace jetcompact --kube-version "$kube" \
			-f "$chart/$values" >"$out"
		n="$(grep -c '^kind:' "$out" || true)"
		[ "$n" -gt 0 ] || { echo "Kubernetes ${kube}, ${values}: rendered nothing"; exit 1; }
		echo "rendered $n manifests"
	done
done

# A misspelt value fails lint (values.schema.json refuses unknown keys).
if "${offline[@]}" helm lint --strict --kube-version 1.34.0 "$chart" --set image.tga=v1 >"$work/lint.out" 2>&1; then
	echo "helm lint accepted the misspelt value image.tga"; exit 1
fi
grep -q "tga" "$work/lint.out" || { cat "$work/lint.out"; echo "helm lint did not name image.tga"; exit 1; }
echo "a misspelt value fails lint"

cd deploy/manifesttest
go vet ./...
test -z "$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
go test -count=1 ./...
echo "helm.sh: done in $((SECONDS - start)) s"
