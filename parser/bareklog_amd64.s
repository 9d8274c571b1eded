#include "textflag.h"

// func bareKlogKernel(p *byte, n, s, hit, max int, ref8, ref2 uint64) (count, prev, last, end int)
//
// See bareKlogKernel in bareklog_amd64.go. Registers: SI p, DX n, CX the
// current line start, BX hit, R8 max, R9 count, R10 prev, R11 last; Y15
// '\n', Y14 ' ', Y13 '0', Y12 9, each in every byte. The reference header
// bytes are compared in memory.
TEXT ·bareKlogKernel(SB), NOSPLIT, $0-88
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), DX
	MOVQ s+16(FP), CX
	MOVQ hit+24(FP), BX
	MOVQ max+32(FP), R8
	XORQ R9, R9
	MOVQ $-1, R10
	MOVQ $-1, R11

	MOVQ         $0x0a, AX
	MOVQ         AX, X15
	VPBROADCASTB X15, Y15
	MOVQ         $0x20, AX
	MOVQ         AX, X14
	VPBROADCASTB X14, Y14
	MOVQ         $0x30, AX
	MOVQ         AX, X13
	VPBROADCASTB X13, Y13
	MOVQ         $0x09, AX
	MOVQ         AX, X12
	VPBROADCASTB X12, Y12

line:
	// the header's 32 bytes must lie in p, the line start before hit
	LEAQ 32(CX), AX
	CMPQ AX, DX
	JA   done
	CMPQ CX, BX
	JAE  done

	// level I, W, E or F: bit c-'E' of 0x40013
	MOVBLZX (SI)(CX*1), AX
	SUBL    $0x45, AX
	CMPL    AX, $0x12
	JA      done
	MOVL    $0x40013, R12
	BTL     AX, R12
	JCC     done

	// "MMDD HH:MM" as in the reference line
	MOVQ    1(SI)(CX*1), AX
	CMPQ    AX, ref8+40(FP)
	JNE     done
	MOVWQZX 9(SI)(CX*1), AX
	CMPQ    AX, ref2+48(FP)
	JNE     done

	// ":SS" with SS <= 60
	CMPB    11(SI)(CX*1), $0x3a
	JNE     done
	MOVBLZX 12(SI)(CX*1), AX
	SUBL    $0x30, AX
	CMPL    AX, $6
	JA      done
	MOVBLZX 13(SI)(CX*1), R12
	SUBL    $0x30, R12
	CMPL    R12, $9
	JA      done
	CMPL    AX, $6
	JNE     secok
	TESTL   R12, R12
	JNZ     done

secok:
	VMOVDQU   (SI)(CX*1), Y0
	VPSUBB    Y13, Y0, Y1
	VPMINUB   Y12, Y1, Y2
	VPCMPEQB  Y1, Y2, Y2
	VPMOVMSKB Y2, R12 // digits
	VPCMPEQB  Y14, Y0, Y3
	VPMOVMSKB Y3, R13 // blanks
	VPCMPEQB  Y15, Y0, Y4
	VPMOVMSKB Y4, R15 // newlines

	// j: after the fraction of a second (".ddd"), or 14 without one
	MOVL $14, AX
	CMPB 14(SI)(CX*1), $0x2e
	JNE  blanks
	MOVL R12, AX
	NOTL AX
	SHRL $15, AX
	TZCNTL AX, AX
	ADDL $15, AX
	CMPL AX, $32
	JAE  done

blanks:
	// k: the first non-blank from j must be a digit (the thread id)
	MOVL   R13, DI
	NOTL   DI
	SHRXL  AX, DI, DI
	TZCNTL DI, DI
	ADDL   AX, DI
	CMPL   DI, $32
	JAE    done
	BTL    DI, R12
	JCC    done

	// the line's newline: in the header's 32 bytes (after k, as the
	// bytes up to k are none) or in the next chunks
	MOVQ CX, AX
	TESTL R15, R15
	JNZ  found

next:
	ADDQ $32, AX
	CMPQ AX, BX // a newline at or after hit does not count
	JAE  done
	MOVQ AX, R12
	SUBQ CX, R12
	CMPQ R12, R8 // longer than max
	JA   done
	LEAQ 32(AX), R12
	CMPQ R12, DX
	JA   done
	VMOVDQU   (SI)(AX*1), Y4
	VPCMPEQB  Y15, Y4, Y4
	VPMOVMSKB Y4, R15
	TESTL     R15, R15
	JZ        next

found:
	TZCNTL R15, R15
	ADDQ   R15, AX // the newline
	CMPQ   AX, BX
	JAE    done
	MOVQ   AX, R12
	SUBQ   CX, R12 // content length, CR included
	CMPQ   R12, R8
	JA     done

	// accept
	MOVQ R11, R10
	MOVQ CX, R11
	INCQ R9
	LEAQ 1(AX), CX
	JMP  line

done:
	VZEROUPPER
	MOVQ R9, count+56(FP)
	MOVQ R10, prev+64(FP)
	MOVQ R11, last+72(FP)
	MOVQ CX, end+80(FP)
	RET
