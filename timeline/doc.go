// Package timeline turns parsed events into facts about volumes: it merges
// every input into one time order, links the many names of one volume, and
// reconstructs, per (volume, node), what the attach/detach controller and
// the kubelet believed over time.
//
// It owns:
//
//   - Identity. A volume is keyed on its UniqueName. PV names of the dynamic
//     form pvc-<uid>, backend handles (derived from the UniqueName too) and
//     VolumeAttachment names link into the same volume (union-find). For each
//     CSI volume and each node it was seen on, the VolumeAttachment name
//     "csi-" + hex(sha256(handle+driver+node)) is computed so lines naming
//     only the attachment join. Other display names (static PV names, pod
//     volume names such as "data") join only when they name one volume.
//     Events that join nothing form their own volume. Secret, configmap,
//     projected, empty-dir and downward-api volumes are counted in
//     Timeline.Ignored and kept in Other.
//   - Clock skew. Each kubelet input's offset against the KCM is bounded from
//     below by ordered pairs (the controller's attach success for (V, N)
//     precedes the kubelet's "Controller attach succeeded"/"WaitForAttach
//     succeeded" on N); Options.Skew overrides. Offsets apply before merging.
//     Kubelet events without a node take their input's node: the one node
//     its own lines name, else the node the controller attached its volumes to.
//   - Merge. Sort by (time, input, line); reversed pastes are handled by the
//     sort. An identical line (time and text) from another input is dropped
//     and counted in Timeline.Dupes, and so is a describe row that an Event
//     object of Options.State repeats (the object's exact times are kept).
//   - Restarts: controller-started events (leader election when the detail
//     says so), the process start implied by m=+ moving forward (the
//     monotonic clock went down), and a PID change within one KCM input.
//   - State. Controller: attach-started → attaching, succeeded → attached,
//     failed → uncertain (a retry keeps it uncertain), detach-started or
//     forced → detaching, succeeded or marked detached → no interval,
//     detach failed → uncertain. Event echoes and describe rows count only
//     for nodes without direct controller lines, with the node taken from the
//     pod or from the volume's single node. Kubelet: mounting, mounted,
//     mount-failing; unmount-device/volume-detached end the interval.
//     Overlaps are the stretches where more than one node holds the volume
//     (attaching, attached, uncertain, or still detaching: the disk stays on
//     the node until the detach succeeds).
//   - Multi (RWX/ROX): a KCM nestedpendingoperations key that carries a
//     nodeName for this volume, or two attach-confirmed nodes at once with no
//     Multi-Attach error anywhere and the kubelets showing the volume mounted
//     on both.
//   - Selection: Window (--since/--until, applied to parse results before
//     Build; events without a time are kept) and Timeline.Events (the events
//     of some volumes, and Other, in one time order).
//   - Lookup (Find, FilterNode, FilterPod) with sahilm/fuzzy and edit-distance
//     suggestions, per-volume Stats, and Dump, a plain debug format.
//
// It does not parse lines (package parser), decide what is a finding
// (package rules) or print for users (package report); it never writes to a
// terminal.
package timeline
