#include "textflag.h"

// func chunk(p *byte, n int, m *nibbleMasks) (off int, mask uint32)
//
// For each 32-byte chunk at SI+AX: candidate byte k = AND over j = 0..2 of
// lo_j[b[AX+k+j] & 15] & hi_j[b[AX+k+j] >> 4]; nonzero means the three bytes
// may start a literal of the buckets whose bits are set.
TEXT ·chunk(SB), NOSPLIT, $0-36
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), DX
	MOVQ m+16(FP), DI
	VMOVDQU 0(DI), Y8    // lo nibbles, byte 0
	VMOVDQU 32(DI), Y9   // hi nibbles, byte 0
	VMOVDQU 64(DI), Y10  // lo nibbles, byte 1
	VMOVDQU 96(DI), Y11  // hi nibbles, byte 1
	VMOVDQU 128(DI), Y12 // lo nibbles, byte 2
	VMOVDQU 160(DI), Y13 // hi nibbles, byte 2
	VMOVDQU 192(DI), Y14 // 0x0f
	XORQ AX, AX
	SUBQ $34, DX // the last chunk offset allowed
	JL   none

loop:
	VMOVDQU (SI)(AX*1), Y0
	VPSRLW  $4, Y0, Y1
	VPAND   Y14, Y0, Y0
	VPAND   Y14, Y1, Y1
	VPSHUFB Y0, Y8, Y0
	VPSHUFB Y1, Y9, Y1
	VPAND   Y0, Y1, Y3

	VMOVDQU 1(SI)(AX*1), Y0
	VPSRLW  $4, Y0, Y1
	VPAND   Y14, Y0, Y0
	VPAND   Y14, Y1, Y1
	VPSHUFB Y0, Y10, Y0
	VPSHUFB Y1, Y11, Y1
	VPAND   Y0, Y1, Y2
	VPAND   Y2, Y3, Y3

	VMOVDQU 2(SI)(AX*1), Y0
	VPSRLW  $4, Y0, Y1
	VPAND   Y14, Y0, Y0
	VPAND   Y14, Y1, Y1
	VPSHUFB Y0, Y12, Y0
	VPSHUFB Y1, Y13, Y1
	VPAND   Y0, Y1, Y2
	VPAND   Y2, Y3, Y3

	VPTEST Y3, Y3
	JNZ    found
	ADDQ   $32, AX
	CMPQ   AX, DX
	JLE    loop

none:
	VZEROUPPER
	MOVQ AX, off+24(FP)
	MOVL $0, mask+32(FP)
	RET

found:
	VPXOR     Y4, Y4, Y4
	VPCMPEQB  Y4, Y3, Y3
	VPMOVMSKB Y3, BX
	NOTL      BX
	VZEROUPPER
	MOVQ AX, off+24(FP)
	MOVL BX, mask+32(FP)
	RET
