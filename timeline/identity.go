package timeline

import (
	"strings"

	"github.com/kcmtrace/kcmtrace/state"
)

// AttachmentName is [state.AttachmentName]: the VolumeAttachment name
// Kubernetes gives a CSI volume on a node.
func AttachmentName(handle, driver, node string) string {
	return state.AttachmentName(handle, driver, node)
}

// ParseUniqueName is [state.ParseUniqueName]: a UniqueName split into its
// driver (or in-tree plugin) and backend handle.
func ParseUniqueName(u string) (driver, handle string, ok bool) {
	return state.ParseUniqueName(u)
}

// ignoredPlugins are in-tree plugins whose volumes are pod-local noise.
var ignoredPlugins = []string{
	"kubernetes.io/secret/",
	"kubernetes.io/configmap/",
	"kubernetes.io/projected/",
	"kubernetes.io/empty-dir/",
	"kubernetes.io/downward-api/",
}

// Ignored reports whether a UniqueName belongs to a secret, configmap,
// projected, empty-dir or downward-api volume: pod-local, never attached.
func Ignored(uniqueName string) bool {
	for _, p := range ignoredPlugins {
		if strings.HasPrefix(uniqueName, p) {
			return true
		}
	}
	return false
}

// isDynamicPV reports whether s is a dynamically provisioned PV name
// (pvc-<uid>, lower-case hex: the regexp
// ^pvc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$), which
// is unique in a cluster and therefore safe to link different UniqueNames on
// (in-tree and CSI-migrated names of one volume). It runs once per event,
// so it is a byte loop (isUID on the part after "pvc-"), not a regexp.
func isDynamicPV(s string) bool {
	return len(s) == 40 && s[:4] == "pvc-" && isUID(s[4:])
}

// names is a union-find over volume names, keyed by sym id; a name's id is
// its rank in order of first add.
type names struct {
	of     []int32 // sym id → name id + 1 (0: not a name)
	parent []int32
	sym    []int32 // name id → sym id
}

// add returns the name id of sym i.
func (n *names) add(i int32) int {
	for int(i) >= len(n.of) {
		n.of = append(n.of, 0)
	}
	if j := n.of[i]; j > 0 {
		return int(j - 1)
	}
	j := int32(len(n.parent))
	n.of[i] = j + 1
	n.parent = append(n.parent, j)
	n.sym = append(n.sym, i)
	return int(j)
}

func (n *names) find(i int) int {
	for int(n.parent[i]) != i {
		n.parent[i] = n.parent[n.parent[i]]
		i = int(n.parent[i])
	}
	return i
}

// union links a and b. The root with the smaller id (the name seen first)
// stays the root, so the first-seen UniqueName keys the volume.
func (n *names) union(a, b int) {
	ra, rb := n.find(a), n.find(b)
	if ra == rb {
		return
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	n.parent[rb] = int32(ra)
}

// lookup returns the root of sym i when it is a name.
func (n *names) lookup(i int32) (int, bool) {
	if i < 0 || int(i) >= len(n.of) || n.of[i] == 0 {
		return 0, false
	}
	return n.find(int(n.of[i] - 1)), true
}
