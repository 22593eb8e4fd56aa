/* util.c: fp16 and bfloat16 conversions, exact and round-to-nearest-even; read_line's lines
 * ("\n" or "\r\n", a last line without either, one of exactly cap - 1 characters). */
#include <math.h>
#include <stdio.h>
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

    /* read_line: what a text file's lines are, whatever ends them; cap 8 holds 7 characters */
    FILE *f = tmpfile();
    fputs("a\nb\r\n\n1234567\n7654321\r\nx\ry\nlast", f);
    rewind(f);
    const char *want[] = {"a", "b", "", "1234567", "7654321", "x\ry", "last"};
    char line[8];
    int lineno = 0, n = 0, same = 1;
    while (read_line(f, line, sizeof line, "tmpfile", &lineno)) same &= n < 7 && !strcmp(line, want[n++]);
    fclose(f);
    CHECK(same && n == 7 && lineno == 7, "read_line: %d lines, %d numbered, same %d", n, lineno, same);
    return check_done("test_util");
}
