package io.threadbench.server;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * NativeSleep calls libc's {@code nanosleep} through the Foreign Function &amp;
 * Memory API. A thread in a downcall stays on its OS thread, so on a virtual
 * thread it holds (pins) the carrier for the whole sleep: that is what
 * {@code /api/native} measures.
 *
 * <p>FFM is final from JDK 22 and a preview API in 21; the jar is compiled for
 * 21 without {@code --enable-preview}, so the API is reached through method
 * handles looked up once at startup. Where it cannot be (a JDK 21 that refuses
 * it), {@link #sleep} throws {@link UnavailableException} and the endpoint
 * answers 501.
 */
public final class NativeSleep {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long TIMESPEC_SIZE = 16; // struct timespec { long tv_sec; long tv_nsec; } on LP64
    private static final long TIMESPEC_ALIGN = 8;

    private final Handles handles;
    private final String unavailableReason;

    private NativeSleep(Handles handles, String unavailableReason) {
        this.handles = handles;
        this.unavailableReason = unavailableReason;
    }

    /** load links nanosleep once and tries it; failures make an unavailable NativeSleep, not an error. */
    public static NativeSleep load() {
        try {
            NativeSleep sleep = new NativeSleep(Handles.link(), null);
            sleep.sleep(0); // prove the downcall works now rather than on the first request
            return sleep;
        } catch (Throwable e) {
            return unavailable("nanosleep via java.lang.foreign is unavailable on Java "
                    + Runtime.version() + ": " + e);
        }
    }

    /** unavailable is a NativeSleep whose every sleep fails with {@code reason}. */
    static NativeSleep unavailable(String reason) {
        return new NativeSleep(null, reason);
    }

    /** isAvailable reports whether sleep can make the downcall. */
    public boolean isAvailable() {
        return handles != null;
    }

    /** unavailableReason says why the downcall cannot be made, or null when it can. */
    public String unavailableReason() {
        return unavailableReason;
    }

    /**
     * sleep blocks the calling OS thread in nanosleep for {@code millis}. A
     * signal can end nanosleep early (EINTR); the loop sleeps again for what
     * is left of the deadline, so errno is never needed.
     */
    public void sleep(long millis) {
        if (handles == null) {
            throw new UnavailableException(unavailableReason);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        try {
            Object arena = handles.openArena.invokeExact();
            try {
                Object timespec = handles.allocate.invokeExact(arena, TIMESPEC_SIZE, TIMESPEC_ALIGN);
                long left = Math.max(0, deadline - System.nanoTime());
                do {
                    handles.setLong.invokeExact(timespec, 0L, left / NANOS_PER_SECOND);
                    handles.setLong.invokeExact(timespec, 8L, left % NANOS_PER_SECOND);
                    // -1 with EINTR when a signal cut it short: the loop sleeps what is left.
                    int ignored = (int) handles.nanosleep.invokeExact(timespec, handles.nullSegment);
                    left = deadline - System.nanoTime();
                } while (left > 0);
            } finally {
                handles.closeArena.invokeExact(arena);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("nanosleep downcall", e);
        }
    }

    /** UnavailableException means this JVM cannot make the downcall; it becomes a 501. */
    public static class UnavailableException extends RuntimeException {

        /** UnavailableException carries the reason shown in the 501 body. */
        public UnavailableException(String message) {
            super(message);
        }
    }

    /**
     * Handles are the FFM operations sleep needs, typed with Object in place
     * of the java.lang.foreign types this class cannot name at compile time.
     */
    private record Handles(
            MethodHandle nanosleep,   // (MemorySegment req, MemorySegment rem) -> int
            MethodHandle openArena,   // () -> Arena
            MethodHandle allocate,    // (Arena, long size, long align) -> MemorySegment
            MethodHandle setLong,     // (MemorySegment, long offset, long value) -> void
            MethodHandle closeArena,  // (Arena) -> void
            Object nullSegment) {     // MemorySegment.NULL: nanosleep's rem, unused

        static Handles link() throws Throwable {
            // A full-privilege lookup: the restricted FFM methods are caller-sensitive
            // (native access is granted per module), which publicLookup() refuses.
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            Class<?> linker = Class.forName("java.lang.foreign.Linker");
            Class<?> option = Class.forName("java.lang.foreign.Linker$Option");
            Class<?> symbols = Class.forName("java.lang.foreign.SymbolLookup");
            Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
            Class<?> layout = Class.forName("java.lang.foreign.MemoryLayout");
            Class<?> valueLayout = Class.forName("java.lang.foreign.ValueLayout");
            Class<?> longLayout = Class.forName("java.lang.foreign.ValueLayout$OfLong");
            Class<?> descriptor = Class.forName("java.lang.foreign.FunctionDescriptor");
            Class<?> arena = Class.forName("java.lang.foreign.Arena");

            Object nativeLinker = lookup.findStatic(linker, "nativeLinker", MethodType.methodType(linker)).invoke();
            Object libc = lookup.findVirtual(linker, "defaultLookup", MethodType.methodType(symbols))
                    .invoke(nativeLinker);
            Optional<?> symbol = (Optional<?>) lookup
                    .findVirtual(symbols, "find", MethodType.methodType(Optional.class, String.class))
                    .invoke(libc, "nanosleep");
            Object address = symbol.orElseThrow(() -> new IllegalStateException("libc has no nanosleep"));

            // int nanosleep(const struct timespec *req, struct timespec *rem)
            Object pointer = valueLayout.getField("ADDRESS").get(null);
            Object[] arguments = (Object[]) Array.newInstance(layout, 2);
            arguments[0] = pointer;
            arguments[1] = pointer;
            Object signature = lookup
                    .findStatic(descriptor, "of", MethodType.methodType(descriptor, layout, layout.arrayType()))
                    .asFixedArity()
                    .invoke(valueLayout.getField("JAVA_INT").get(null), arguments);
            MethodHandle downcall = (MethodHandle) lookup
                    .findVirtual(linker, "downcallHandle",
                            MethodType.methodType(MethodHandle.class, segment, descriptor, option.arrayType()))
                    .asFixedArity()
                    .invoke(nativeLinker, address, signature, Array.newInstance(option, 0));

            MethodHandle setLong = MethodHandles.insertArguments(
                    lookup.findVirtual(segment, "set",
                            MethodType.methodType(void.class, longLayout, long.class, long.class)),
                    1, valueLayout.getField("JAVA_LONG").get(null));
            return new Handles(
                    downcall.asType(MethodType.methodType(int.class, Object.class, Object.class)),
                    lookup.findStatic(arena, "ofConfined", MethodType.methodType(arena))
                            .asType(MethodType.methodType(Object.class)),
                    lookup.findVirtual(arena, "allocate", MethodType.methodType(segment, long.class, long.class))
                            .asType(MethodType.methodType(Object.class, Object.class, long.class, long.class)),
                    setLong.asType(MethodType.methodType(void.class, Object.class, long.class, long.class)),
                    lookup.findVirtual(arena, "close", MethodType.methodType(void.class))
                            .asType(MethodType.methodType(void.class, Object.class)),
                    segment.getField("NULL").get(null));
        }
    }
}
