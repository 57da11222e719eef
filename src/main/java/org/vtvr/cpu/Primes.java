package org.vtvr.cpu;

/** The CPU kernel of the cpu scenario: counts primes up to n by trial division (no allocation, pure CPU). */
public final class Primes {

    private Primes() {
    }

    public static int countUpTo(int n) {
        int count = n >= 2 ? 1 : 0;
        for (int candidate = 3; candidate <= n; candidate += 2) {
            if (isOddPrime(candidate)) {
                count++;
            }
        }
        return count;
    }

    private static boolean isOddPrime(int candidate) {
        for (int d = 3; (long) d * d <= candidate; d += 2) {
            if (candidate % d == 0) {
                return false;
            }
        }
        return true;
    }
}
