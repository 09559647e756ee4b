package io.threadbench.server;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Pins pins a virtual thread to its carrier on purpose, in the two ways that
 * still pin on every JDK since JEP 491: parking inside a class initializer,
 * and parking with a native frame on the stack.
 */
final class Pins {

    /** PIN_MS is how long each pin lasts. */
    static final long PIN_MS = 30;

    private Pins() {
    }

    /**
     * inClassInitializer runs a class initializer that sleeps, on a new
     * virtual thread, and waits for it. Each call defines the class anew in a
     * fresh class loader, as an initializer runs once per class.
     */
    static void inClassInitializer() throws Exception {
        byte[] bytes;
        try (InputStream in = Pins.class.getResourceAsStream("SleepingInitializer.class")) {
            bytes = in.readAllBytes();
        }
        String name = SleepingInitializer.class.getName();
        ClassLoader fresh = new ClassLoader(Pins.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String className, boolean resolve) throws ClassNotFoundException {
                return className.equals(name) ? defineClass(name, bytes, 0, bytes.length) : super.loadClass(className, resolve);
            }
        };
        onVirtualThread(() -> Class.forName(name, true, fresh));
    }

    /**
     * underNativeFrame has libc's qsort call back into Java, which sleeps: an
     * FFM upcall, so the virtual thread parks with qsort's frame on its stack.
     * FFM is final from JDK 22; the tests are compiled for 21, hence reflection.
     */
    static void underNativeFrame() throws Exception {
        onVirtualThread(Pins::qsortWithSleepingComparator);
    }

    private static int sleepThenCompare() {
        SleepingInitializer.sleep();
        return 0;
    }

    /** Work is what onVirtualThread runs. */
    interface Work {
        void run() throws Throwable;
    }

    private static void onVirtualThread(Work work) throws Exception {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread.ofVirtual().start(() -> {
            try {
                work.run();
            } catch (Throwable e) {
                failed.set(e);
            }
        }).join();
        if (failed.get() != null) {
            throw new IllegalStateException("pinning failed", failed.get());
        }
    }

    private static void qsortWithSleepingComparator() throws Throwable {
        Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
        Class<?> option = Class.forName("java.lang.foreign.Linker$Option");
        Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
        Class<?> layout = Class.forName("java.lang.foreign.MemoryLayout");
        Class<?> valueLayout = Class.forName("java.lang.foreign.ValueLayout");
        Class<?> descriptor = Class.forName("java.lang.foreign.FunctionDescriptor");
        Class<?> arenaClass = Class.forName("java.lang.foreign.Arena");
        Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
        Object libc = linkerClass.getMethod("defaultLookup").invoke(linker);
        Object qsortAddress = ((Optional<?>) Class.forName("java.lang.foreign.SymbolLookup").getMethod("find", String.class)
                .invoke(libc, "qsort")).orElseThrow(() -> new IOException("libc has no qsort"));
        Object address = valueLayout.getField("ADDRESS").get(null);
        Object javaLong = valueLayout.getField("JAVA_LONG").get(null);
        Object noOptions = Array.newInstance(option, 0);
        // void qsort(void *base, size_t n, size_t size, int (*compar)(const void *, const void *))
        Object qsortSignature = descriptor.getMethod("ofVoid", layout.arrayType())
                .invoke(null, layouts(layout, address, javaLong, javaLong, address));
        Object compareSignature = descriptor.getMethod("of", layout, layout.arrayType())
                .invoke(null, valueLayout.getField("JAVA_INT").get(null), layouts(layout, address, address));
        MethodHandle qsort = (MethodHandle) linkerClass
                .getMethod("downcallHandle", segment, descriptor, option.arrayType())
                .invoke(linker, qsortAddress, qsortSignature, noOptions);
        MethodHandle compare = MethodHandles.dropArguments(MethodHandles.lookup()
                .findStatic(Pins.class, "sleepThenCompare", MethodType.methodType(int.class)), 0, segment, segment);
        try (AutoCloseable arena = (AutoCloseable) arenaClass.getMethod("ofConfined").invoke(null)) {
            Object comparator = linkerClass.getMethod("upcallStub", MethodHandle.class, descriptor, arenaClass,
                    option.arrayType()).invoke(linker, compare, compareSignature, arena, noOptions);
            Object twoInts = arenaClass.getMethod("allocate", long.class, long.class).invoke(arena, 8L, 4L);
            qsort.invokeWithArguments(twoInts, 2L, 4L, comparator); // two elements: one comparison
        }
    }

    private static Object layouts(Class<?> layout, Object... elements) {
        Object array = Array.newInstance(layout, elements.length);
        for (int i = 0; i < elements.length; i++) {
            Array.set(array, i, elements[i]);
        }
        return array;
    }
}
