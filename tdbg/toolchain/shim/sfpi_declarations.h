/* tdbg's SFPI stand-in: SFPI's programming interface declared, never defined, so that clang can
   read SFPU code a kernel includes but does not run (ttnn's reduce kernel includes the SFPU
   library; SFPI's GCC reads it with its own vector types).  Included by sfpi.h when the stand-in
   defines TDBG_SFPI_DECLARATIONS (it retries a kernel that failed on SFPI names that way, with
   -fdelayed-template-parsing, so that uninstantiated templates are not read at all).  Nothing
   here has a body: a kernel that does run SFPI code links against these declarations and fails
   there, and the stand-in names the line that uses them.  The names are SFPI's, as tt-llk and
   tt-metal's headers use them; the modifier values come from the pages cited. */
#pragma once
#define sfpi_inline inline __attribute__((always_inline))

namespace sfpi {
enum class DataLayout { Default, F32, FSrcB, I32, M32, ROW_MAJOR, SM32, TILE, U16, U32 };
enum class RoundMode { Nearest, NearestAway, NearestStochastic };
enum class ExponentMode { Biased, Unbiased };
enum class MantissaMode { ImplicitOne, NoImplicitOne };
enum class ShiftMode { Arithmetic, Logical };
enum class LutSign { Retain, Update };
enum class FractionalHalf { Low, High };
enum class LRegs { LReg0, LReg1, LReg2, LReg3, LReg4, LReg5, LReg6, LReg7 };

struct __vcond;
template <class Tag> struct __vec;
using __vany = __vec<void>;

template <class Tag> struct __vec {
    __vec();
    template <class U> __vec(const U&);
    template <class U, class V, class... W> __vec(const U&, const V&, const W&...);
    __vany get() const;
    template <auto P> __vany& mode() const;
    template <class U> __vec& operator=(const U&);
    template <class U> explicit operator U() const;
    template <class U> __vany operator+(const U&) const;
    template <class U> __vany operator-(const U&) const;
    template <class U> __vany operator*(const U&) const;
    template <class U> __vany operator/(const U&) const;
    template <class U> __vany operator&(const U&) const;
    template <class U> __vany operator|(const U&) const;
    template <class U> __vany operator^(const U&) const;
    template <class U> __vany operator<<(const U&) const;
    template <class U> __vany operator>>(const U&) const;
    template <class U> __vec& operator+=(const U&);
    template <class U> __vec& operator-=(const U&);
    template <class U> __vec& operator*=(const U&);
    template <class U> __vec& operator&=(const U&);
    template <class U> __vec& operator|=(const U&);
    template <class U> __vec& operator^=(const U&);
    template <class U> __vec& operator<<=(const U&);
    template <class U> __vec& operator>>=(const U&);
    template <class U> __vcond operator<(const U&) const;
    template <class U> __vcond operator<=(const U&) const;
    template <class U> __vcond operator>(const U&) const;
    template <class U> __vcond operator>=(const U&) const;
    template <class U> __vcond operator==(const U&) const;
    template <class U> __vcond operator!=(const U&) const;
    __vany operator-() const;
    __vany operator~() const;
    __vec& operator++();
    __vany operator++(int);
    __vec& operator--();
    __vany operator--(int);
    void in_use() const;
};
template <class U, class T> requires(__is_arithmetic(U)) __vany operator+(const U&, const __vec<T>&);
template <class U, class T> requires(__is_arithmetic(U)) __vany operator-(const U&, const __vec<T>&);
template <class U, class T> requires(__is_arithmetic(U)) __vany operator*(const U&, const __vec<T>&);
template <class U, class T> requires(__is_arithmetic(U)) __vcond operator<(const U&, const __vec<T>&);
template <class U, class T> requires(__is_arithmetic(U)) __vcond operator>(const U&, const __vec<T>&);

struct __vcond {
    template <class U> __vcond(const U&);
    __vcond operator&&(const __vcond&) const;
    __vcond operator||(const __vcond&) const;
    __vcond operator!() const;
};
struct __vcc {
    __vcc();
    ~__vcc();
    void if_(const __vcond&);
    void else_();
    void and_(const __vcond&);
};

using vFloat = __vec<struct __vFloat>;
using vInt = __vec<struct __vInt>;
using vUInt = __vec<struct __vUInt>;
using vFloat16b = __vec<struct __vFloat16b>;
using vFloat16a = __vec<struct __vFloat16a>;
using vMag = __vec<struct __vMag>;
using vSMag = __vec<struct __vSMag>;
using vSMag16 = __vec<struct __vSMag16>;
using vSMag8 = __vec<struct __vSMag8>;
using vUInt8 = __vec<struct __vUInt8>;
using vUInt16 = __vec<struct __vUInt16>;
using vLut16ss = __vec<struct __vLut16ss>;
using vLut16ii = __vec<struct __vLut16ii>;
using vLut8si = __vec<struct __vLut8si>;
using vBool = __vcond;
using sFloat16b = __vec<struct __sFloat16b>;
using sFloat16a = __vec<struct __sFloat16a>;

// SFPIADD.md, SFPSWAP.md, SFPSTOCHRND_FloatInt.md (WormholeB0): the Mod1 values
constexpr unsigned SFPIADD_MOD1_ARG_LREG_DST = 0, SFPIADD_MOD1_ARG_IMM = 1, SFPIADD_MOD1_ARG_2SCOMP_LREG_DST = 2,
    SFPIADD_MOD1_CC_LT0 = 0, SFPIADD_MOD1_CC_NONE = 4, SFPIADD_MOD1_CC_GTE0 = 8;
constexpr unsigned SFPSWAP_MOD1_SWAP = 0, SFPSWAP_MOD1_VEC_MIN_MAX = 1;
constexpr unsigned SFPSTOCHRND_MOD1_FP32_TO_FP16B = 1;                       // SFPSTOCHRND_FloatFloat.md
constexpr unsigned SFPSTOCHRND_MOD1_FP32_TO_UINT8 = 2, SFPSTOCHRND_MOD1_FP32_TO_INT8 = 3,
    SFPSTOCHRND_MOD1_FP32_TO_UINT16 = 6, SFPSTOCHRND_MOD1_FP32_TO_INT16 = 7;     // SFPSTOCHRND_FloatInt.md
constexpr unsigned SFPEXEXP_MOD1_SET_CC_SGN_EXP = 2, SFPEXEXP_MOD1_SET_CC_COMP_EXP = 8;  // SFPEXEXP.md
constexpr unsigned SFPEXMAN_MOD1_PAD9 = 1;                                    // SFPEXMAN.md
constexpr unsigned SFPLZ_MOD1_CC_NE0 = 2, SFPLZ_MOD1_NOSGN_MASK = 4, SFPLZ_MOD1_CC_COMP = 8;  // SFPLZ.md
// no page gives these: usable as values, never as constants (a use that needs one does not build)
extern const unsigned SFPARECIP_MOD1_RECIP, SFPMAD_MOD1_OFFSET_NONE, SFPSTOCHRND_RND_EVEN, SFPABS_MOD1_INT,
    SFPCAST_MOD1_INT32_TO_FP32_RNE, SFPCAST_MOD1_SM32_TO_FP32_RNE, SFPENCC_IMM12_BOTH, SFPENCC_MOD1_EI_RI,
    SFPENCC_MOD1_EU_R1;
// a dst_reg step is 2 Dst rows (tt-llk's ckernel_sfpu_add_int.h: "64/SFP_DESTREG_STRIDE = 32 rows")
constexpr unsigned SFP_DESTREG_STRIDE = 2;
struct lreg_pressure {
    lreg_pressure();
    ~lreg_pressure();
};
struct __regs {
    template <class I> __vany& operator[](const I&) const;
    __regs& operator++();
    __regs operator++(int);
    template <class I> __regs& operator+=(const I&);
};
extern __regs dst_reg;
extern __regs l_reg;
extern __vany vConst0, vConst1, vConstNeg1, vConst0p8373, vConstLn2, vConst1Ln2, vConstTileId, vConstFloatPrgm0,
    vConstFloatPrgm1, vConstFloatPrgm2, vConstIntPrgm0, vConstIntPrgm1, vConstIntPrgm2;

#define __TDBG_SFPI_FN(name) template <class... A> __vany name(A&&...); \
    template <class T, class... A> T name(A&&...); template <auto P, class... A> __vany name(A&&...); \
    template <auto P, auto Q, class... A> __vany name(A&&...);
__TDBG_SFPI_FN(as) __TDBG_SFPI_FN(convert) __TDBG_SFPI_FN(reinterpret) __TDBG_SFPI_FN(abs) __TDBG_SFPI_FN(exexp)
__TDBG_SFPI_FN(exexp_nodebias) __TDBG_SFPI_FN(copysgn) __TDBG_SFPI_FN(setexp) __TDBG_SFPI_FN(setsgn) __TDBG_SFPI_FN(min)
__TDBG_SFPI_FN(max) __TDBG_SFPI_FN(clamp) __TDBG_SFPI_FN(approx_recip) __TDBG_SFPI_FN(exman) __TDBG_SFPI_FN(exman8)
__TDBG_SFPI_FN(exman9) __TDBG_SFPI_FN(addexp) __TDBG_SFPI_FN(fractional_mul) __TDBG_SFPI_FN(shft) __TDBG_SFPI_FN(lut)
__TDBG_SFPI_FN(lut2) __TDBG_SFPI_FN(lut2_sign) __TDBG_SFPI_FN(lut_sign) __TDBG_SFPI_FN(is_inf) __TDBG_SFPI_FN(setsgn2)
__TDBG_SFPI_FN(nearby) __TDBG_SFPI_FN(is_nan) __TDBG_SFPI_FN(setman) 
__TDBG_SFPI_FN(is_finite) __TDBG_SFPI_FN(symmetric_clamp) __TDBG_SFPI_FN(vec_min_max) __TDBG_SFPI_FN(subvec_transp)
__TDBG_SFPI_FN(subvec_shflror1) __TDBG_SFPI_FN(subvec_shflshr1) __TDBG_SFPI_FN(min_max) __TDBG_SFPI_FN(is_pos)
__TDBG_SFPI_FN(is_neg) __TDBG_SFPI_FN(float_to_fp16b) __TDBG_SFPI_FN(float_to_fp16a) __TDBG_SFPI_FN(float_to_uint8)
__TDBG_SFPI_FN(float_to_int8) __TDBG_SFPI_FN(float_to_uint16) __TDBG_SFPI_FN(float_to_int16) __TDBG_SFPI_FN(int32_to_float)
__TDBG_SFPI_FN(float_to_int32) __TDBG_SFPI_FN(lz) __TDBG_SFPI_FN(lz_nosgn)
#undef __TDBG_SFPI_FN
}  // namespace sfpi
template <class... A> sfpi::__vany __builtin_rvtt_sfpmad(A...);
template <class... A> sfpi::__vany __builtin_rvtt_sfpgt(A...);

#define v_if(c) { sfpi::__vcc __tdbg_cc; __tdbg_cc.if_(c);
#define v_elseif(c) __tdbg_cc.else_(); __tdbg_cc.if_(c);
#define v_else __tdbg_cc.else_();
#define v_endif }
#define v_and(c) __tdbg_cc.and_(c)
#define v_block { sfpi::__vcc __tdbg_cc;
#define v_endblock }
