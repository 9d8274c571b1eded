// Package textstore owns the memory of the strings an event keeps: the
// entry text ([Text], read back from its file by offset when it is a run
// of the file's bytes, else held in blocks of texts compressed with S2 and
// decompressed on demand) and the names cut from it ([Names], interned so
// that a name repeated by many events is one string, and [Tuples], the
// tuples of names events share).
//
// # Texts
//
// An event keeps the entry it was read from — the entry as read, wrapper
// removed — as evidence for the report and for the events command. Most
// events' texts are never read again, so they are appended to a [Builder]
// (one per input being read, used by its scanner goroutine only) and a
// [Text] is a reference into the builder's current block (block, offset,
// length: 16 bytes, a string header's size). A block is sealed once it
// holds at least [BlockSize] bytes, and at the end of the input: its texts
// are compressed with S2 (github.com/klauspost/compress/s2) and the raw
// bytes are let go. S2 because texts are read on demand, one at a time:
// it decodes at several GB/s (a 64 KiB block in tens of microseconds) and
// compresses log text about as well as Snappy, far faster than zstd or
// gzip decode. [Text.String] decompresses through a small process-wide
// cache of decoded blocks (LRU), so that a reader in time order (the
// events command, every event's text across the inputs) decompresses each
// block about once.
//
// # Texts read back from their file
//
// Most texts of a large input are a klog line of a regular file, exactly
// as it lies there: for those the parser, which reads such a file from
// mappings of it, keeps no bytes at all. An [Origin] holds the file open
// and [Origin.Ref] makes a Text of the same 16 bytes that refers to an
// offset of it; [Text.String] reads it back (pread, through an 8 KiB
// window: a finding's evidence lies close together). A 1 GiB log of a
// large cluster's churn is ~4.7 MB of S2 blocks less (45 bytes an event),
// and the S2 encoding leaves the goroutine that files the events.
// The rest stays in blocks: a text with its wrapper removed (journald
// prefixes, CRI headers, export envelopes and JSON exports rewrite it),
// continuation lines joined, and whatever stdin, compressed files,
// archives and log-store fetches hold, which cannot be read again.
//
// A file can change between the parse and the report. Rotation by rename
// does not matter (the Origin reads the file it opened); appending does
// not either. A file cut (copytruncate) or rewritten is found on the
// first read, which checks that the file still holds the first and the
// last text handed out (their hashes): its texts then read
// "[text unavailable: <path>: <why>]" rather than other bytes. (So do
// those of a file cut while it was being read: the events before the cut
// are kept, as the parser says, but their bytes are gone.) At most 256
// Origins hold their file open at once; past that, texts go to blocks.
// Many texts wanted at once (a run's evidence) are read with [Strings]:
// by file and offset, each once, neighbours in one read, on several
// goroutines.
//
// [TextOf] makes a Text of a string that is already in memory (events
// made outside the parser: tests, the cluster state, a folded run's last
// line); it holds the string itself and copies nothing.
//
// # Names
//
// Names (volumes, PVs, handles, nodes, pods, errors) were windows of the
// event's text; with the text compressed they need memory of their own.
// [Names] copies each distinct name once into an arena and hands the same
// string to every event that names it.
//
// # Tuples
//
// An event's names go in three tuples (its volume's names, its node and
// pod, its error), which many events share: [Tuples] makes each distinct
// tuple once, and the names of a new one are interned by Names. A tuple
// found again costs one hash of its strings and no interning.
//
// # Off the collector's heap
//
// Names and tuples are what a run keeps longest and most of: a large
// cluster's log has hundreds of thousands. When the run's memory policy
// enables internal/offheap (a large input), both are made in its memory,
// which the collector neither scans nor frees; tuples then point only to
// names and constants, never into the Go heap (see [Tuples]).
package textstore
