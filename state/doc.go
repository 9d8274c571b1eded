// Package state reads cluster state that users dump next to their logs —
// VolumeAttachments, PersistentVolumes and their claims, Nodes, CSINodes,
// CSIDrivers, StorageClasses, Pods and Events — and answers the questions the
// rules ask of it, each answer with an evidence line naming the object and
// where it was read ("state.json:12: VolumeAttachment csi-… node=10.0.3.27
// … status.attached=true").
//
// It owns: decoding of kubectl get -o json and -o yaml output (single
// objects, Lists, several YAML documents, concatenated JSON objects, JSON
// arrays, kubectl get -A of many kinds at once) and of kubectl describe of
// PV, PVC, Node and VolumeAttachment ([Snapshot.Add]); content detection
// ([Detect]); the normalised model ([Snapshot]) keyed by the same volume
// identity as the logs (PV name, UniqueName, CSI handle or in-tree id,
// VolumeAttachment name, see [AttachmentName] and [PersistentVolume.Names]);
// the facts (facts.go: zones, attachments, drivers and limits, presence,
// pod → claim → PV, StorageClass, Events). It does not own: turning Events
// into parser events, joining volumes on the timeline, deciding findings, or
// printing; it imports nothing else of kcmtrace.
//
// # Decoder
//
// Objects are decoded with encoding/json into small typed structs that
// mirror the API for the fields kcmtrace reads (wire.go), and converted to
// the model (model.go). YAML is parsed with go.yaml.in/yaml/v3 (the YAML
// organisation's maintained yaml.v3, the parser sigs.k8s.io/yaml builds
// on) into nodes, so every object and List item keeps its line; each
// object's node is converted to JSON (keys as strings, timestamps as
// written) and decoded by the same structs. YAML 1.2 scalars keep an
// unquoted "yes" a string where sigs.k8s.io/yaml's YAML 1.1 conversion
// would make it a boolean and fail a string field.
//
// The upstream types (k8s.io/api with k8s.io/apimachinery) were measured on
// a program decoding five kinds from YAML with Go 1.26 on this project's
// 2-core machine: a cold build took 1m46s against 14s for the same program
// with typed structs (+92 s), the binary grew from 3.9 MB to 13.2 MB
// (+9.3 MB, against kcmtrace's 16.9 MB), it pulled 17 modules (83
// packages: apimachinery, kube-openapi, structured-merge-diff, cbor,
// json-iterator, x/net, …) and would raise golang.org/x/text from v0.14 to
// v0.40 for the whole module. kcmtrace reads about 60 fields of nine kinds
// and needs none of the scheme machinery, so it keeps its own structs; the
// field names and JSON tags follow the API, and fields it does not know
// are ignored, so newer API versions decode.
//
// # Positions and problems
//
// JSON is read with a streaming decoder: the items of a List are decoded
// one by one, so a truncated List keeps the items before the cut, and each
// object keeps the line it starts on. YAML documents ("---") are parsed one
// by one, so a syntax error loses only its document. Every problem —
// truncated JSON, a YAML syntax error, an object without kind or
// metadata.name, a field of the wrong type, a timestamp that is not RFC
// 3339, a kind the package does not read (one problem per kind) — is one
// [Problem] naming the file and line; the other objects are kept.
//
// # Time
//
// A dump is one moment. [File].Taken is when it was taken at the earliest:
// the latest time written in it (managedFields, Node heartbeats, Event
// last times, creation and deletion timestamps), else the file's
// modification time ([Snapshot.ReadFile]). Every [Evidence] carries it as
// At, so a rule never lets the dump overrule a log line that is later.
//
// # Describe
//
// kubectl describe prints "Key:  value" lines with indented sections,
// continuation lines aligned to the value column, list items and tables
// (describe.go). Its relative ages ("Terminating (lasts 2m)") are not
// times: an object being deleted is known to be deleting, not since when.
// The Events tables of describe output are the log parser's (package
// parser); this package skips them.
package state
