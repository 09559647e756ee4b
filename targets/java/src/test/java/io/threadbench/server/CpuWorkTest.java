package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CpuWorkTest {

    @ParameterizedTest(name = "work={0}")
    @CsvSource({
        // no rounds: the buffer's first 32 bytes as filled
        "0, 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        // the contract's known values
        "1, 785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9",
        "1000, ac0d7e5eb10992f9d5ee99e21e5784f0a236676f7d585ae2dfbe91639a7730c8",
    })
    void knownResults(int work, String want) {
        assertEquals(want, CpuWork.run(work));
    }
}
