/* util.c: fp16 and bfloat16 conversions, exact and round-to-nearest-even. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "util.h"

int main(void) {
    /* every finite fp16 value survives half -> float -> half */
    int bad = 0;
    for (int h = 0; h < 65536; h++) {
        float f = half_to_float((uint16_t)h);
        if (!isnan(f) && float_to_half(f) != h) bad++;
    }
    CHECK(bad == 0, "%d fp16 values do not round-trip", bad);
    CHECK(half_to_float(0x3c00) == 1.0f && half_to_float(0xc000) == -2.0f, "1 and -2");
    CHECK(half_to_float(0x7bff) == 65504.0f && half_to_float(0x0001) == ldexpf(1, -24), "max and min subnormal");
    CHECK(float_to_half(65519.0f) == 0x7bff && float_to_half(65520.0f) == 0x7c00, "overflow to inf at 65520");
    CHECK(float_to_half(ldexpf(1, -25)) == 0 && float_to_half(ldexpf(3, -26)) == 1, "subnormal rounding");
    CHECK(float_to_half(1.0f + ldexpf(1, -11)) == 0x3c00, "a tie rounds to even (down)");
    CHECK(float_to_half(1.0f + ldexpf(3, -11)) == 0x3c02, "a tie rounds to even (up)");
    CHECK(float_to_half(1.0f + ldexpf(1, -11) + ldexpf(1, -20)) == 0x3c01, "above a tie rounds up");
    CHECK(isnan(half_to_float(float_to_half(NAN))) && float_to_half(-INFINITY) == 0xfc00, "nan and -inf");
    CHECK(bf16_to_float(0x3f80) == 1.0f && bf16_to_float(0xc0a0) == -5.0f, "bf16 1 and -5");
    return check_done("test_util");
}
