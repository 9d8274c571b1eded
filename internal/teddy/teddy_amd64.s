#include "textflag.h"

// ARGS loads both kernels' arguments: p into SI, n into DX, m into DI.
#define ARGS \
	MOVQ p+0(FP), SI; \
	MOVQ n+8(FP), DX; \
	MOVQ m+16(FP), DI

// TABLES loads the six nibble tables of m (DI) with op into r0 … r5: for
// bytes 0, 1 and 2 of a fingerprint, the low-nibble table, then the high.
#define TABLES(op, r0, r1, r2, r3, r4, r5) \
	op 0(DI), r0; \
	op 32(DI), r1; \
	op 64(DI), r2; \
	op 96(DI), r3; \
	op 128(DI), r4; \
	op 160(DI), r5

// RETURN returns AX as off and val (stored by op) as mask.
#define RETURN(op, val) \
	VZEROUPPER; \
	MOVQ AX, off+24(FP); \
	op   val, mask+32(FP); \
	RET

// func chunk(p *byte, n int, m *nibbleMasks) (off int, mask uint32)
//
// For each 32-byte chunk at SI+AX: candidate byte k = AND over j = 0..2 of
// lo_j[b[AX+k+j] & 15] & hi_j[b[AX+k+j] >> 4]; nonzero means the three bytes
// may start a literal of the buckets whose bits are set.
TEXT ·chunk(SB), NOSPLIT, $0-36
	ARGS
	TABLES(VMOVDQU, Y8, Y9, Y10, Y11, Y12, Y13)
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
	RETURN(MOVL, $0)

found:
	VPXOR     Y4, Y4, Y4
	VPCMPEQB  Y4, Y3, Y3
	VPMOVMSKB Y3, BX
	NOTL      BX
	RETURN(MOVL, BX)

// LOOKUP512 looks the bytes at SI+AX+off up by their low nibble in table
// lo (into Z0) and by their high nibble in table hi (into Z1).
#define LOOKUP512(off, lo, hi) \
	VMOVDQU64 off(SI)(AX*1), Z0; \
	VPSRLW    $4, Z0, Z1; \
	VPERMB    lo, Z0, Z0; \
	VPERMB    hi, Z1, Z1

// func chunk512(p *byte, n int, m *nibbleMasks) (off int, mask uint64)
//
// chunk for 64-byte chunks at offsets 0, 64, … ≤ n-66, with AVX-512: each
// 16-entry nibble table is broadcast to all four 128-bit lanes, so VPERMB
// (which indexes a 64-byte table by the low six bits) looks a byte up by
// its low nibble without masking, and the shifted byte by its high nibble
// (the bits shifted in from the next byte land above the six). The three
// bytes' results are ANDed with VPTERNLOGD.
TEXT ·chunk512(SB), NOSPLIT, $0-40
	ARGS
	TABLES(VBROADCASTI32X4, Z8, Z9, Z10, Z11, Z12, Z13)
	XORQ            AX, AX
	SUBQ            $66, DX      // the last chunk offset allowed
	JL              none512

loop512:
	LOOKUP512(0, Z8, Z9)
	VPANDQ     Z0, Z1, Z3
	LOOKUP512(1, Z10, Z11)
	VPTERNLOGD $0x80, Z0, Z1, Z3
	LOOKUP512(2, Z12, Z13)
	VPTERNLOGD $0x80, Z0, Z1, Z3
	VPTESTMB Z3, Z3, K1
	KORTESTQ K1, K1
	JNZ      found512
	ADDQ     $64, AX
	CMPQ     AX, DX
	JLE      loop512

none512:
	RETURN(MOVQ, $0)

found512:
	KMOVQ K1, BX
	RETURN(MOVQ, BX)
