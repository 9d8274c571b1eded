#include "textflag.h"

// How the kernel reads: the bytes from s are scanned for newlines 64 at a
// time, in windows of up to WINDOW bytes, their offsets written to pos:
// for 64 bytes with one newline or none, the offset of the first newline
// unconditionally (64 bytes on when none, then overwritten), and all of
// them for 64 bytes with two or more. The lines are then checked one after
// the other, each taking the next newline from pos, so no branch depends
// on where a newline falls. A window ends early once fewer than 64 entries
// of pos are left.
#define WINDOW 4096
#define POSCAP 128

// func jsonLinesKernel(p *byte, n, s, hit, max int, starts *int, room int) (count, end int)
//
// See jsonLinesKernel in fastpath_json_amd64.go. The frame is pos (POSCAP
// absolute offsets). Registers: SI p, CX the current line start, BX hit,
// R8 max, DI starts, R10 count, R11 jsonHead's 6 bytes shifted to the top
// of the word, AX the next 64 bytes to scan, DX n-64 (the last offset 64
// bytes are scanned from), R9 the end of the window, R13 the entries of
// pos written, R14 those read; R12 and R15 are scratch. Y15 has '\n' in
// every byte.
TEXT ·jsonLinesKernel(SB), 0, $1024-72
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), DX
	MOVQ s+16(FP), CX
	MOVQ hit+24(FP), BX
	MOVQ max+32(FP), R8
	MOVQ starts+40(FP), DI
	XORQ R10, R10
	SUBQ $64, DX
	MOVQ $0x3a227374227b0000, R11
	MOVQ CX, AX
	XORQ R13, R13
	XORQ R14, R14

	MOVQ         $0x0a, R15
	VMOVQ        R15, X15
	VPBROADCASTB X15, Y15

line:
	// a line to take: room for it, its first 8 bytes in p, jsonHead
	CMPQ R10, room+48(FP)
	JGE  done
	LEAQ 8(CX), R15
	CMPQ R15, n+8(FP)
	JGT  done
	MOVQ (SI)(CX*1), R15
	SHLQ $16, R15
	CMPQ R15, R11
	JNE  done

	// its newline: the next entry of pos, after a window is scanned when
	// none is left
	CMPQ R14, R13
	JLT  check
	XORQ R13, R13
	XORQ R14, R14
	LEAQ WINDOW(AX), R9

scan:
	CMPQ      AX, BX
	JGE       scanned // at or after hit
	CMPQ      AX, DX
	JGT       scanned // the 64 bytes are not all in p
	CMPQ      AX, R9
	JGE       scanned
	CMPQ      R13, $(POSCAP-64)
	JGT       scanned
	VMOVDQU   (SI)(AX*1), Y0
	VMOVDQU   32(SI)(AX*1), Y1
	VPCMPEQB  Y15, Y0, Y0
	VPCMPEQB  Y15, Y1, Y1
	VPMOVMSKB Y0, R15
	VPMOVMSKB Y1, R12
	SHLQ      $32, R12
	ORQ       R12, R15
	POPCNTQ   R15, R12
	CMPQ      R12, $1
	JGT       several
	TZCNTQ    R15, R15
	ADDQ      AX, R15
	MOVQ      R15, (SP)(R13*8)
	ADDQ      R12, R13
	ADDQ      $64, AX
	JMP       scan

several:
	// two or more newlines in the 64 bytes: each
	TZCNTQ R15, R12
	ADDQ   AX, R12
	MOVQ   R12, (SP)(R13*8)
	INCQ   R13
	BLSRQ  R15, R15
	JNZ    several
	ADDQ   $64, AX
	JMP    scan

scanned:
	CMPQ R14, R13
	JLT  check
	// no newline in the window: the next one, while there are bytes to
	// scan
	CMPQ AX, BX
	JGE  done
	CMPQ AX, DX
	JGT  done
	LEAQ WINDOW(AX), R9
	JMP  scan

check:
	// the newline at R15: before hit, 9 to max bytes after the start
	MOVQ (SP)(R14*8), R15
	INCQ R14
	CMPQ R15, BX
	JGE  done
	MOVQ R15, R12
	SUBQ CX, R12
	CMPQ R12, R8
	JGT  done
	CMPQ R12, $9
	JLT  done
	MOVQ CX, (DI)(R10*8)
	INCQ R10
	LEAQ 1(R15), CX
	JMP  line

done:
	VZEROUPPER
	MOVQ R10, count+56(FP)
	MOVQ CX, end+64(FP)
	RET
