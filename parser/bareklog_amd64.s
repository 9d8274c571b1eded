#include "textflag.h"

// How the kernel reads: the region before min(hit, n) is read in windows
// of up to WINDOW bytes. A window is first scanned for newlines 128 bytes
// at a time, their offsets in the window written to pos: for each half of
// the 128 bytes its first newline, unconditionally (64 past the half when
// it has none, then overwritten), and all of them in the rare 128 bytes
// with two or more in a half. The lines are then checked one after the
// other, each taking the next newline from pos, so no branch depends on
// where a newline falls. A line's header is checked before its newline is
// looked for, so a run that ends at once scans nothing.
//
// Only newlines before n-32 are scanned so (and before cur+max+1, cur the
// line start when the window is scanned): every line after one of them
// has its header's 32 bytes in p, and every line ending with one of them
// is at most max bytes, so the lines need neither check. A line whose
// newline is in the last 32 bytes of p is the kernel's last (last).
//
// pos holds POSCAP entries. 128 bytes write at most 128 entries, and two
// in the usual case: a window ends early once 128 bytes with more leave
// POSFULL or more, so 128 bytes never start with more than POSFULL-1 +
// 2*WINDOW/128 entries written, leaving room for 128 more; the bytes after
// the window's last whole 128 (the tail) are fewer than 128.
#define WINDOW 2048
#define POSCAP 256
#define POSFULL 64

// The frame (544 bytes on the TEXT line): pos (16-bit offsets from the
// window start), then min(hit, n) (the newlines that count are before
// it), n-32 (the last line start whose header's 32 bytes lie in p),
// min(hit, n-32) (the end of the newlines scanned in windows) and the end
// of the current window's.
#define LIM (POSCAP*2)
#define NLIM (POSCAP*2+8)
#define RLIM (POSCAP*2+16)
#define WLIM (POSCAP*2+24)

// func bareKlogKernel(p *byte, n, s, hit, max int, ref8, ref2 uint64) (count, prev, last, end int)
//
// See bareKlogKernel in bareklog_amd64.go. Registers: SI p, CX the current
// line start, AX the end of the bytes scanned for newlines, R15 the start
// of the current window, DI the next entry of pos and R13 the entries
// written, R9 count (less DI), R10 prev, R11 last; BX, DX, R8, R12 and R14
// are scratch.
//
// Y15 '\n', Y14 ' ', Y13 '0', Y7 9, each in every byte; Y12 9 but 5 at
// byte 12 (a second up to 59); Y11 the header template: the reference's
// bytes 1-10, ':' at 11, '0' at 12 and 13 (a digit there passes anyway)
// and '.' at 14; Y10 the level letters by their low nibble ('E' at 5, 'F'
// at 6, 'W' at 7, 'I' at 9, 0x80 elsewhere, which no byte looks up: VPSHUFB
// gives 0 for a byte with its top bit set); Y9 0xff at byte 0 (the
// level's); Y8 0xff at bytes 12, 13 and 15-31 (digits), 0 elsewhere (as
// the template).
TEXT ·bareKlogKernel(SB), NOSPLIT, $544-88
	MOVQ    p+0(FP), SI
	MOVQ    n+8(FP), DX
	MOVQ    s+16(FP), CX
	MOVQ    hit+24(FP), BX
	CMPQ    BX, DX
	CMOVQGT DX, BX
	MOVQ    BX, LIM(SP)
	SUBQ    $32, DX
	MOVQ    DX, NLIM(SP)
	CMPQ    DX, BX
	CMOVQGT BX, DX
	MOVQ    DX, RLIM(SP)
	XORQ    R9, R9
	MOVQ    $-1, R10
	MOVQ    $-1, R11
	MOVQ    CX, AX
	MOVQ    CX, R15
	XORQ    DI, DI
	XORQ    R13, R13

	MOVQ         $0x0a, BX
	VMOVQ        BX, X15
	VPBROADCASTB X15, Y15
	MOVQ         $0x20, BX
	VMOVQ        BX, X14
	VPBROADCASTB X14, Y14
	MOVQ         $0x30, BX
	VMOVQ        BX, X13
	VPBROADCASTB X13, Y13
	MOVQ         $0x09, BX
	VMOVQ        BX, X7
	VPBROADCASTB X7, Y7
	MOVQ         $0x05, BX
	VPINSRB      $12, BX, X7, X12
	VINSERTI128  $1, X7, Y12, Y12

	// the template: bytes 0-7 ref8<<8, bytes 8-15 ref8>>56 | ref2<<8 |
	// ':'<<24 | '0'<<32 | '0'<<40 | '.'<<48
	MOVQ    ref8+40(FP), BX
	MOVQ    BX, DX
	SHLQ    $8, BX
	SHRQ    $56, DX
	MOVQ    ref2+48(FP), R12
	SHLQ    $8, R12
	ORQ     R12, DX
	MOVQ    $0x002e30303a000000, R12
	ORQ     R12, DX
	VMOVQ   BX, X11
	VPINSRQ $1, DX, X11, X11

	// the level letters (in both lanes), the masks
	MOVQ        $0x5746458080808080, BX
	MOVQ        $0x8080808080804980, DX
	VMOVQ       BX, X10
	VPINSRQ     $1, DX, X10, X10
	VINSERTI128 $1, X10, Y10, Y10
	MOVQ        $0xff, BX
	VMOVQ       BX, X9
	XORQ        BX, BX
	MOVQ        $0xff00ffff00000000, DX
	VMOVQ       BX, X8
	VPINSRQ     $1, DX, X8, X8
	VPCMPEQB    Y0, Y0, Y0
	VINSERTI128 $1, X0, Y8, Y8

	// the first line's header must lie in p (the next lines' do: their
	// starts follow newlines before n-32)
	CMPQ CX, NLIM(SP)
	JGT  done
	JMP  line

newline:
	// accept the line at CX, its newline the next in pos
	MOVWLZX (SP)(DI*2), R12
	ADDQ    R15, R12
	INCQ    DI
	MOVQ    R11, R10
	MOVQ    CX, R11
	LEAQ    1(R12), CX

line:
	VMOVDQU   (SI)(CX*1), Y0
	VPSHUFB   Y0, Y10, Y1
	VPBLENDVB Y9, Y1, Y11, Y1 // byte 0 a level letter when the line's is one
	VPCMPEQB  Y1, Y0, Y5      // as the template
	VPSUBB    Y13, Y0, Y2
	VPMINUB   Y12, Y2, Y3
	VPCMPEQB  Y2, Y3, Y3      // digits (only '0'-'5' at byte 12)
	VPBLENDVB Y8, Y3, Y5, Y1
	VPMOVMSKB Y1, R12
	VPCMPEQB  Y14, Y0, Y4
	VPMOVMSKB Y4, DX          // blanks

	// the usual header, bits 0-14 of R12: a level letter, "MMDD HH:MM"
	// as in the reference line, ':', a second up to 59 and '.'; R12 has
	// the digits from 15 (and is zero-extended)
	MOVQ  R12, BX
	NOTQ  BX
	TESTL $0x7fff, BX
	JNZ   slow
	BLSIQ BX, R8 // 1<<j, j the first non-digit from 15

threadid:
	// 1<<k, k the first non-blank from j (the carry of 1<<j through the
	// blanks; the blanks are zero-extended), must be a digit among the
	// line's first 32 bytes (the thread id)
	LEAQ  (DX)(R8*1), BX
	ANDNQ BX, DX, BX
	TESTQ BX, R12
	JZ    done

	// the line's newline: the next one scanned (not in the header's
	// bytes up to k, which are none)
	CMPQ DI, R13
	JB   newline

scan:
	// no newline left before AX: scan the next window from AX
	ADDQ DI, R9
	XORQ DI, DI
	MOVQ AX, BX
	SUBQ CX, BX
	CMPQ BX, max+32(FP)
	JA   done // the line is longer than max
	MOVQ RLIM(SP), R8
	CMPQ AX, R8
	JAE  last

	// the window ends before cur+max+1 (unsigned, as max)
	MOVQ R8, BX
	SUBQ CX, BX
	CMPQ BX, max+32(FP)
	JLS  wlim
	MOVQ max+32(FP), R8
	LEAQ 1(CX)(R8*1), R8

wlim:
	MOVQ R8, WLIM(SP)
	MOVQ AX, R15
	XORQ R13, R13

	// the whole 128s of the window, AX from the window start (DI)
	LEAQ    (SI)(AX*1), DI
	SUBQ    AX, R8
	SUBQ    $127, R8
	MOVQ    $WINDOW, BX
	CMPQ    R8, BX
	CMOVQGT BX, R8
	XORQ    AX, AX
	TESTQ   R8, R8
	JLE     scanned

pair:
	VPCMPEQB  (DI)(AX*1), Y15, Y0
	VPCMPEQB  32(DI)(AX*1), Y15, Y1
	VPCMPEQB  64(DI)(AX*1), Y15, Y2
	VPCMPEQB  96(DI)(AX*1), Y15, Y3
	VPMOVMSKB Y0, R12
	VPMOVMSKB Y1, R14
	VPMOVMSKB Y2, BX
	VPMOVMSKB Y3, DX
	SHLQ      $32, R14
	ORQ       R14, R12 // the first 64
	SHLQ      $32, DX
	ORQ       DX, BX   // the second 64
	TZCNTQ    R12, R14 // 64 when none
	ADDQ      AX, R14
	MOVW      R14, (SP)(R13*2)
	POPCNTQ   R12, R14
	ADDQ      R14, R13
	TZCNTQ    BX, DX
	LEAQ      64(AX)(DX*1), DX
	MOVW      DX, (SP)(R13*2)
	POPCNTQ   BX, DX
	ADDQ      DX, R13
	ORQ       R14, DX
	CMPQ      DX, $1
	JA        multi

paired:
	ADDQ $128, AX
	CMPQ AX, R8
	JLT  pair

scanned:
	ADDQ R15, AX
	XORQ DI, DI

	// fewer than 128 bytes left in the window: scan them too
	LEAQ 128(AX), BX
	CMPQ BX, WLIM(SP)
	JA   tail
	CMPQ DI, R13
	JB   newline
	JMP  scan

multi:
	// two newlines or more in a half: all of them, in place of the
	// entries written for the 128 bytes
	POPCNTQ R12, R14
	SUBQ    R14, R13
	POPCNTQ BX, R14
	SUBQ    R14, R13
	TESTQ   R12, R12
	JZ      multi2

multi1:
	TZCNTQ R12, R14
	ADDQ   AX, R14
	MOVW   R14, (SP)(R13*2)
	INCQ   R13
	BLSRQ  R12, R12
	JNZ    multi1

multi2:
	TESTQ BX, BX
	JZ    multied

multi2next:
	TZCNTQ BX, R14
	LEAQ   64(AX)(R14*1), R14
	MOVW   R14, (SP)(R13*2)
	INCQ   R13
	BLSRQ  BX, BX
	JNZ    multi2next

multied:
	CMPQ R13, $POSFULL
	JB   paired

	// pos is full: check the lines found
	ADDQ $128, AX
	ADDQ R15, AX
	XORQ DI, DI
	JMP  newline

tail:
	// the bytes from AX to the window's end, 32 at a time (all in p:
	// the window ends before n-32)
	MOVQ WLIM(SP), R8

tailchunk:
	CMPQ      AX, R8
	JAE       tailed
	VPCMPEQB  (SI)(AX*1), Y15, Y0
	VPMOVMSKB Y0, R12
	MOVQ      R8, R14
	SUBQ      AX, R14
	BZHIL     R14, R12, R12 // before the window's end (all when 32 or more)
	TESTL     R12, R12
	JZ        tailnext

tailbits:
	TZCNTL R12, R14
	ADDQ   AX, R14
	SUBQ   R15, R14
	MOVW   R14, (SP)(R13*2)
	INCQ   R13
	BLSRL  R12, R12
	JNZ    tailbits

tailnext:
	ADDQ $32, AX
	JMP  tailchunk

tailed:
	MOVQ R8, AX // all scanned
	CMPQ DI, R13
	JB   newline
	JMP  scan

last:
	// all is scanned up to AX, min(hit, n-32): when that is n-32 and
	// before hit, the line's newline may still be in the last 32 bytes
	// of p (before hit), and its line is then the last one taken
	MOVQ      LIM(SP), R8
	CMPQ      AX, R8
	JAE       done
	MOVQ      NLIM(SP), BX
	VPCMPEQB  (SI)(BX*1), Y15, Y0
	VPMOVMSKB Y0, R12
	MOVQ      AX, R14
	SUBQ      BX, R14
	SHRXL     R14, R12, R12
	MOVQ      R8, R14
	SUBQ      AX, R14
	BZHIL     R14, R12, R12
	TZCNTL    R12, R12
	JCS       done // none
	ADDQ      AX, R12
	MOVQ      R12, BX
	SUBQ      CX, BX
	CMPQ      BX, max+32(FP)
	JA        done
	INCQ      R9
	MOVQ      R11, R10
	MOVQ      CX, R11
	LEAQ      1(R12), CX
	JMP       done

slow:
	// not the usual header: all the checks
	VPMINUB   Y7, Y2, Y3
	VPCMPEQB  Y2, Y3, Y3
	VPMOVMSKB Y3, R14 // digits
	VPMOVMSKB Y5, R12 // as the template

	// level I, W, E or F, "MMDD HH:MM" as in the reference line, ':',
	// and digits at 12-13
	MOVL  R14, BX
	ANDL  $0x3000, BX
	ORL   R12, BX
	NOTL  BX
	TESTL $0x3fff, BX
	JNZ   done

	// the second (bytes 12-13) up to "60"
	MOVL   12(SI)(CX*1), BX
	BSWAPL BX
	CMPL   BX, $0x3630ffff
	JA     done

	// 1<<j, j after the fraction of a second (".ddd") when byte 14 is
	// '.', 14 without one
	MOVQ    R14, BX
	ORQ     $0x7fff, BX
	NOTQ    BX
	BLSIQ   BX, BX
	MOVL    $0x4000, R8
	BTL     $14, R12
	CMOVQCS BX, R8
	MOVQ    R14, R12
	JMP     threadid

done:
	VZEROUPPER
	ADDQ DI, R9
	MOVQ R9, count+56(FP)
	MOVQ R10, prev+64(FP)
	MOVQ R11, last+72(FP)
	MOVQ CX, end+80(FP)
	RET
