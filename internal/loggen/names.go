package loggen

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
)

// k8s rand.SafeEncodeString alphabet: what pod-template hashes and pod
// suffixes are made of.
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

const lowerAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"

var namespaces = []string{
	"default", "kube-system", "payments", "shop", "analytics", "monitoring", "ingress-nginx",
	"ci", "logging", "auth", "search", "batch", "media", "orders", "inventory", "ml-serving",
}

var apps = []string{
	"web", "api", "frontend", "checkout", "cart", "worker", "redis", "kafka", "zookeeper",
	"prometheus", "grafana", "nginx", "fluentd", "elasticsearch", "mysql", "postgres",
	"gateway", "notifier", "scheduler", "indexer", "thumbnailer", "recommender", "billing",
	"auth-proxy", "session", "ledger", "catalog", "search-api", "mailer", "exporter",
}

var containersForApp = []string{"app", "main", "server", "sidecar", "istio-proxy"}

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

func randString(r *rand.Rand, alphabet string, n int) string {
	var buf [64]byte
	return string(appendRand(buf[:0], r, alphabet, n))
}

func appendRand(b []byte, r *rand.Rand, alphabet string, n int) []byte {
	for i := 0; i < n; i++ {
		b = append(b, alphabet[r.IntN(len(alphabet))])
	}
	return b
}

func randUUID(r *rand.Rand) string {
	var u [16]byte
	a, c := r.Uint64(), r.Uint64()
	for i := 0; i < 8; i++ {
		u[i] = byte(a >> (8 * i))
		u[8+i] = byte(c >> (8 * i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// hashUUID is a deterministic UUID for (a, b) that does not consume the main
// random stream (pod UIDs of healthy lifecycles are rendered lazily).
func hashUUID(seed uint64, a, b uint64) string {
	r := rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15*(a+1), b*0xbf58476d1ce4e5b9+a))
	return randUUID(r)
}

// attachmentName is the CSI VolumeAttachment name: csi-<sha256(handle+driver+node)>.
func attachmentName(handle, driver, node string) string {
	s := sha256.Sum256([]byte(handle + driver + node))
	return "csi-" + hex.EncodeToString(s[:])
}

func globalMountHash(handle string) string {
	s := sha256.Sum256([]byte(handle))
	return hex.EncodeToString(s[:])
}

func itoa(n int) string { return strconv.Itoa(n) }
