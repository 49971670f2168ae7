// Package manifesttest renders the Helm chart in deploy/helm/jetcompact with
// `helm template` and checks every manifest: each one decodes strictly into
// its typed Kubernetes object (unknown fields and wrong types fail), and the
// rendered fleet meets the deployment contract (one Deployment per segment,
// secrets referenced and never inlined, probes, non-root pods, KEDA on the
// right stream and consumer).
//
// It is a separate module so that the k8s.io dependencies it needs stay out
// of the product's module graph and binaries.
package manifesttest
