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

// func chunk512(p *byte, n int, m *nibbleMasks) (off int, mask uint64)
//
// chunk for 64-byte chunks at offsets 0, 64, … ≤ n-66, with AVX-512: each
// 16-entry nibble table is broadcast to all four 128-bit lanes, so VPERMB
// (which indexes a 64-byte table by the low six bits) looks a byte up by
// its low nibble without masking, and the shifted byte by its high nibble
// (the bits shifted in from the next byte land above the six). The three
// bytes' results are ANDed with VPTERNLOGD.
TEXT ·chunk512(SB), NOSPLIT, $0-40
	MOVQ            p+0(FP), SI
	MOVQ            n+8(FP), DX
	MOVQ            m+16(FP), DI
	VBROADCASTI32X4 0(DI), Z8    // lo nibbles, byte 0
	VBROADCASTI32X4 32(DI), Z9   // hi nibbles, byte 0
	VBROADCASTI32X4 64(DI), Z10  // lo nibbles, byte 1
	VBROADCASTI32X4 96(DI), Z11  // hi nibbles, byte 1
	VBROADCASTI32X4 128(DI), Z12 // lo nibbles, byte 2
	VBROADCASTI32X4 160(DI), Z13 // hi nibbles, byte 2
	XORQ            AX, AX
	SUBQ            $66, DX      // the last chunk offset allowed
	JL              none512

loop512:
	VMOVDQU64 (SI)(AX*1), Z0
	VPSRLW    $4, Z0, Z1
	VPERMB    Z8, Z0, Z0
	VPERMB    Z9, Z1, Z1
	VPANDQ    Z0, Z1, Z3

	VMOVDQU64  1(SI)(AX*1), Z0
	VPSRLW     $4, Z0, Z1
	VPERMB     Z10, Z0, Z0
	VPERMB     Z11, Z1, Z1
	VPTERNLOGD $0x80, Z0, Z1, Z3

	VMOVDQU64  2(SI)(AX*1), Z0
	VPSRLW     $4, Z0, Z1
	VPERMB     Z12, Z0, Z0
	VPERMB     Z13, Z1, Z1
	VPTERNLOGD $0x80, Z0, Z1, Z3

	VPTESTMB Z3, Z3, K1
	KORTESTQ K1, K1
	JNZ      found512
	ADDQ     $64, AX
	CMPQ     AX, DX
	JLE      loop512

none512:
	VZEROUPPER
	MOVQ AX, off+24(FP)
	MOVQ $0, mask+32(FP)
	RET

found512:
	KMOVQ K1, BX
	VZEROUPPER
	MOVQ  AX, off+24(FP)
	MOVQ  BX, mask+32(FP)
	RET
