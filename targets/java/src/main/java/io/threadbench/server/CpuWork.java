package io.threadbench.server;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** CpuWork is the contract's CPU-bound work, identical in every target so results compare. */
public final class CpuWork {

    private static final int BUFFER_SIZE = 1024;
    private static final int DIGEST_SIZE = 32;

    private CpuWork() {
    }

    /**
     * run hashes a 1024-byte buffer {@code rounds} times, writing each SHA-256
     * digest over the buffer's first 32 bytes, and returns those bytes in hex.
     */
    public static String run(int rounds) {
        byte[] buf = new byte[BUFFER_SIZE];
        for (int i = 0; i < buf.length; i++) {
            buf[i] = (byte) i;
        }
        MessageDigest sha256 = newSha256();
        try {
            for (int i = 0; i < rounds; i++) {
                sha256.update(buf);
                // digest() resets the engine and writes in place: no allocation per round.
                sha256.digest(buf, 0, DIGEST_SIZE);
            }
        } catch (DigestException e) {
            throw new IllegalStateException("SHA-256 into a 1024-byte buffer", e);
        }
        return HexFormat.of().formatHex(buf, 0, DIGEST_SIZE);
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
