package stages

import (
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// The build zoo: failures as the common toolchains print them, in the
// dialects of more CI systems, inside long passing noise. Each shape
// returns the block the tool prints and the reasons a human would quote
// from it (each must survive, read as score.py reads it).

type zooFailure struct {
	name string
	gen  func(r *rand.Rand) (block string, reasons []string)
}

func pick(r *rand.Rand, words ...string) string { return words[r.Intn(len(words))] }

var zooFailures = []zooFailure{
	{"cargo E0308", func(r *rand.Rand) (string, []string) {
		ln, col := 10+r.Intn(300), 5+r.Intn(20)
		head := "error[E0308]: mismatched types"
		span := fmt.Sprintf("  --> src/%s.rs:%d:%d", pick(r, "main", "store", "lib"), ln, col)
		b := head + "\n" + span + "\n   |\n" +
			fmt.Sprintf("%d |     let total: u32 = \"hello\";\n", ln) +
			"   |                ---   ^^^^^^^ expected `u32`, found `&str`\n   |                |\n   |                expected due to this\n\n" +
			"For more information about this error, try `rustc --explain E0308`.\n" +
			"error: could not compile `app` (bin \"app\") due to 1 previous error\n"
		return b, []string{head + "\n" + span, "error: could not compile `app`"}
	}},
	{"rust test panic", func(r *rand.Rand) (string, []string) {
		var b strings.Builder
		b.WriteString("running 40 tests\n")
		for i := 0; i < 40; i++ {
			if i == 17 {
				b.WriteString("test tests::sums_invoice ... FAILED\n")
				continue
			}
			fmt.Fprintf(&b, "test tests::%s ... ok\n", strings.ReplaceAll(testName(i), " ", "_"))
		}
		reason := fmt.Sprintf("thread 'tests::sums_invoice' panicked at src/lib.rs:%d:9:\nassertion `left == right` failed\n  left: %d\n right: %d", 10+r.Intn(200), r.Intn(50), 50+r.Intn(50))
		b.WriteString("\nfailures:\n\n---- tests::sums_invoice stdout ----\n" + reason +
			"\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    tests::sums_invoice\n\n" +
			"test result: FAILED. 39 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n\nerror: test failed, to rerun pass `--lib`\n")
		return b.String(), []string{reason, "test result: FAILED."}
	}},
	{"go test fail", func(r *rand.Rand) (string, []string) {
		var b strings.Builder
		for i := 0; i < 30; i++ {
			n := goTestName(i)
			fmt.Fprintf(&b, "=== RUN   Test%s\n--- PASS: Test%s (0.%02ds)\n", n, n, r.Intn(99))
		}
		reason := fmt.Sprintf("    parse_test.go:%d: got %d fields, want %d\n--- FAIL: TestParseHeader (0.00s)", 10+r.Intn(300), r.Intn(9), 9+r.Intn(9))
		b.WriteString("=== RUN   TestParseHeader\n" + reason + "\nFAIL\nFAIL\tgithub.com/acme/svc/parse\t0.012s\n")
		return b.String(), []string{reason, "FAIL\tgithub.com/acme/svc/parse"}
	}},
	{"go panic goroutines", func(r *rand.Rand) (string, []string) {
		var b strings.Builder
		head := "panic: runtime error: invalid memory address or nil pointer dereference [recovered]"
		b.WriteString(head + "\n" + fmt.Sprintf("[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x%x]\n\n", 0x400000+r.Intn(0xfffff)))
		b.WriteString("goroutine 7 [running]:\ntesting.tRunner.func1.2({0x5a1b20, 0x6d3f40})\n\t/usr/local/go/src/testing/testing.go:1631 +0x24a\n")
		frame := fmt.Sprintf("github.com/acme/svc/store.(*DB).Get(0x0, {0x5b2c10, 0x3})\n\t/src/store/db.go:%d +0x1c", 20+r.Intn(200))
		b.WriteString(frame + "\n")
		for g := 0; g < 3+r.Intn(6); g++ {
			fmt.Fprintf(&b, "\ngoroutine %d [chan receive]:\ngithub.com/acme/svc/pool.(*Pool).worker(0xc000%04x)\n\t/src/pool/pool.go:%d +0x%x\ncreated by github.com/acme/svc/pool.New in goroutine 1\n\t/src/pool/pool.go:40 +0x88\n", 20+g, r.Intn(9999), 50+g, r.Intn(999))
		}
		b.WriteString("FAIL\tgithub.com/acme/svc/store\t0.020s\n")
		return b.String(), []string{head, frame, "FAIL\tgithub.com/acme/svc/store"}
	}},
	{"go build", func(r *rand.Rand) (string, []string) {
		l1 := fmt.Sprintf("./server.go:%d:%d: undefined: handleLogin", 10+r.Intn(300), 2+r.Intn(20))
		l2 := fmt.Sprintf("./server.go:%d:%d: cannot use port (variable of type string) as int value in argument to listen", 10+r.Intn(300), 2+r.Intn(20))
		return "# github.com/acme/svc\n" + l1 + "\n" + l2 + "\n", []string{l1, l2}
	}},
	{"pytest", func(r *rand.Rand) (string, []string) {
		got, want := r.Intn(50), 50+r.Intn(50)
		e := fmt.Sprintf("E       assert %d == %d", got, want)
		f := fmt.Sprintf("FAILED tests/test_cart.py::test_total - assert %d == %d", got, want)
		b := "=================================== FAILURES ===================================\n" +
			"__________________________________ test_total __________________________________\n\n" +
			"    def test_total():\n>       assert total(CART) == " + fmt.Sprint(want) + "\n" + e + "\n" +
			fmt.Sprintf("E        +  where %d = total(CART)\n\ntests/test_cart.py:14: AssertionError\n", got) +
			"=========================== short test summary info ============================\n" + f + "\n" +
			fmt.Sprintf("========================= 1 failed, %d passed in 3.21s =========================\n", 100+r.Intn(300))
		return b, []string{e, f}
	}},
	{"jest", func(r *rand.Rand) (string, []string) {
		got, want := r.Intn(50), 50+r.Intn(50)
		head := "  ● Cart › computes the total"
		ev := fmt.Sprintf("    Expected: %d\n    Received: %d", want, got)
		b := "FAIL src/cart.test.js\n" + head + "\n\n    expect(received).toBe(expected) // Object.is equality\n\n" + ev + "\n\n" +
			"      12 |   it('computes the total', () => {\n    > 13 |     expect(total(cart)).toBe(" + fmt.Sprint(want) + ");\n         |                         ^\n      14 |   });\n\n" +
			"      at Object.<anonymous> (src/cart.test.js:13:25)\n\n" +
			fmt.Sprintf("Test Suites: 1 failed, %d passed, %d total\nTests:       1 failed, %d passed, %d total\n", 20+r.Intn(9), 30, 300+r.Intn(100), 400+r.Intn(100))
		return b, []string{head, ev}
	}},
	{"mocha", func(r *rand.Rand) (string, []string) {
		got, want := r.Intn(50), 50+r.Intn(50)
		a := fmt.Sprintf("      AssertionError: expected %d to equal %d", got, want)
		b := fmt.Sprintf("\n  %d passing (2s)\n  1 failing\n\n  1) Cart\n       computes the total:\n\n", 100+r.Intn(300)) + a +
			fmt.Sprintf("\n      + expected - actual\n\n      -%d\n      +%d\n\n      at Context.<anonymous> (test/cart.spec.js:13:26)\n", got, want)
		return b, []string{a}
	}},
	{"maven surefire", func(r *rand.Rand) (string, []string) {
		got, want := r.Intn(50), 50+r.Intn(50)
		ex := fmt.Sprintf("org.opentest4j.AssertionFailedError: expected: <%d> but was: <%d>", want, got)
		goal := "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on project cart: There are test failures."
		b := fmt.Sprintf("[ERROR] Tests run: %d, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 1.2 s <<< FAILURE! - in com.acme.CartTest\n", 10+r.Intn(40)) +
			"[ERROR] totalIsSum(com.acme.CartTest)  Time elapsed: 0.01 s  <<< FAILURE!\n" + ex + "\n" +
			"\tat org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:55)\n\tat com.acme.CartTest.totalIsSum(CartTest.java:13)\n\n" +
			"[INFO]\n[INFO] Results:\n[INFO]\n[ERROR] Failures: \n[ERROR]   CartTest.totalIsSum:13 expected: <" + fmt.Sprint(want) + "> but was: <" + fmt.Sprint(got) + ">\n" +
			"[INFO]\n[ERROR] Tests run: 120, Failures: 1, Errors: 0, Skipped: 0\n[INFO]\n[INFO] BUILD FAILURE\n[INFO] Total time:  01:02 min\n" + goal + "\n" +
			"[ERROR] \n[ERROR] Please refer to /src/target/surefire-reports for the individual test results.\n"
		return b, []string{ex, goal}
	}},
	{"gradle", func(r *rand.Rand) (string, []string) {
		t := "CartTest > totalIsSum() FAILED\n    org.opentest4j.AssertionFailedError at CartTest.java:" + fmt.Sprint(10+r.Intn(90))
		w := "* What went wrong:\nExecution failed for task ':app:test'."
		b := "> Task :app:test FAILED\n\n" + t + "\n\n" + fmt.Sprintf("%d tests completed, 1 failed\n\n", 50+r.Intn(100)) +
			"FAILURE: Build failed with an exception.\n\n" + w + "\n> There were failing tests. See the report at: file:///src/app/build/reports/tests/test/index.html\n\n" +
			"* Try:\n> Run with --stacktrace option to get the stack trace.\n> Run with --info or --debug option to get more log output.\n\n" +
			fmt.Sprintf("BUILD FAILED in %ds\n%d actionable tasks: %d executed\n", 20+r.Intn(90), 30, 12)
		return b, []string{t, w}
	}},
	{"bazel", func(r *rand.Rand) (string, []string) {
		e := fmt.Sprintf("ERROR: /src/app/BUILD:%d:8: Compiling app/main.cc failed: (Exit 1): gcc failed: error executing command /usr/bin/gcc -c app/main.cc", 5+r.Intn(40))
		c := fmt.Sprintf("app/main.cc:%d:5: error: 'parse_header' was not declared in this scope", 10+r.Intn(200))
		b := e + "\n" + c + "\nTarget //app:main failed to build\nUse --verbose_failures to see the command lines of failed build steps.\n" +
			fmt.Sprintf("INFO: Elapsed time: %d.3s, Critical Path: 3.1s\nINFO: 812 processes: 3 internal, 809 linux-sandbox.\nFAILED: Build did NOT complete successfully\n", r.Intn(90))
		return b, []string{e, c, "FAILED: Build did NOT complete successfully"}
	}},
	{"dotnet", func(r *rand.Rand) (string, []string) {
		e := fmt.Sprintf("/src/App/Program.cs(%d,%d): error CS0103: The name 'config' does not exist in the current context [/src/App/App.csproj]", 10+r.Intn(200), 5+r.Intn(30))
		b := e + "\n\nBuild FAILED.\n\n" + e + "\n    0 Warning(s)\n    1 Error(s)\n\nTime Elapsed 00:00:12.34\n"
		return b, []string{e}
	}},
	{"gcc caret", func(r *rand.Rand) (string, []string) {
		ln := 10 + r.Intn(300)
		e := fmt.Sprintf("src/main.c:%d:5: error: implicit declaration of function 'parse_header' [-Werror=implicit-function-declaration]", ln)
		b := "src/main.c: In function 'main':\n" + e + fmt.Sprintf("\n %4d |     parse_header(buf);\n      |     ^~~~~~~~~~~~\n", ln) +
			"cc1: all warnings being treated as errors\nmake[2]: *** [CMakeFiles/app.dir/build.make:76: CMakeFiles/app.dir/src/main.c.o] Error 1\n" +
			"make[1]: *** [CMakeFiles/Makefile2:83: CMakeFiles/app.dir/all] Error 2\n"
		return b, []string{"src/main.c: In function 'main':\n" + e}
	}},
	{"linker", func(r *rand.Rand) (string, []string) {
		u := "main.c:(.text+0x" + fmt.Sprintf("%x", r.Intn(999)) + "): undefined reference to `parse_header'"
		b := "/usr/bin/ld: CMakeFiles/app.dir/src/main.c.o: in function `main':\n" + u + "\ncollect2: error: ld returned 1 exit status\n"
		return b, []string{u, "collect2: error: ld returned 1 exit status"}
	}},
	{"tsc", func(r *rand.Rand) (string, []string) {
		e1 := fmt.Sprintf("src/cart.ts(%d,5): error TS2322: Type 'string' is not assignable to type 'number'.", 10+r.Intn(200))
		e2 := fmt.Sprintf("src/api.ts:%d:%d - error TS2345: Argument of type 'null' is not assignable to parameter of type 'Options'.", 10+r.Intn(200), 3+r.Intn(20))
		return e1 + "\n" + e2 + "\n\nFound 2 errors in 2 files.\n", []string{e1, e2}
	}},
	{"eslint stylish", func(r *rand.Rand) (string, []string) {
		f := "/src/app/src/cart.js"
		e := fmt.Sprintf("  %d:%d  error  'tmp' is assigned a value but never used  no-unused-vars", 10+r.Intn(200), 3+r.Intn(20))
		b := f + "\n" + e + fmt.Sprintf("\n  %d:1  warning  Unexpected console statement  no-console\n\n✖ 2 problems (1 error, 1 warning)\n", 10+r.Intn(200))
		return b, []string{f + "\n" + e}
	}},
	{"webpack", func(r *rand.Rand) (string, []string) {
		e := fmt.Sprintf("ERROR in ./src/index.js %d:0-28\nModule not found: Error: Can't resolve './cart' in '/src/app/src'", 1+r.Intn(30))
		return e + "\n\nwebpack 5.90.1 compiled with 1 error in 4211 ms\n", []string{e}
	}},
	{"vite", func(r *rand.Rand) (string, []string) {
		e := "[vite]: Rollup failed to resolve import \"lodash-es\" from \"/src/app/src/main.ts\"."
		return "✓ " + fmt.Sprint(100+r.Intn(900)) + " modules transformed.\n" + e + "\nThis is most likely unintended because it can break your application at runtime.\n", []string{e}
	}},
	{"docker build", func(r *rand.Rand) (string, []string) {
		n := 8 + r.Intn(9)
		var b strings.Builder
		fmt.Fprintf(&b, "#%d [build 5/8] RUN npm ci\n", n)
		for i := 0; i < 10; i++ {
			fmt.Fprintf(&b, "#%d %d.%03d npm WARN deprecated pkg%d@1.0.%d: no longer supported\n", n, i, r.Intn(999), i, i)
		}
		m := fmt.Sprintf("#%d 9.%03d npm ERR! code E404\n#%d 9.%03d npm ERR! 404 Not Found - GET https://registry.npmjs.org/@acme%%2finternal - Not found", n, r.Intn(999), n, r.Intn(999))
		e := fmt.Sprintf("#%d ERROR: process \"/bin/sh -c npm ci\" did not complete successfully: exit code: 1", n)
		b.WriteString(m + "\n" + e + "\n------\n > [build 5/8] RUN npm ci:\n------\n" +
			"ERROR: failed to solve: process \"/bin/sh -c npm ci\" did not complete successfully: exit code: 1\n")
		return b.String(), []string{m, e}
	}},
	{"terraform", func(r *rand.Rand) (string, []string) {
		e := fmt.Sprintf("│ Error: creating S3 Bucket (acme-logs-%d): BucketAlreadyExists", r.Intn(99))
		on := fmt.Sprintf("│   on main.tf line %d, in resource \"aws_s3_bucket\" \"logs\":", 5+r.Intn(90))
		b := "╷\n" + e + "\n│ \n│   with aws_s3_bucket.logs,\n" + on + "\n│   12: resource \"aws_s3_bucket\" \"logs\" {\n│ \n╵\n"
		return b, []string{e, on}
	}},
	{"npm lifecycle", func(r *rand.Rand) (string, []string) {
		s := fmt.Sprintf("src/index.js: Unexpected token (%d:%d)", 1+r.Intn(90), 1+r.Intn(40))
		e := "npm ERR! app@1.0.0 build: `babel src -d lib`\nnpm ERR! Exit status 1"
		b := s + "\nnpm ERR! code ELIFECYCLE\nnpm ERR! errno 1\n" + e + "\nnpm ERR! \nnpm ERR! Failed at the app@1.0.0 build script.\n" +
			"npm ERR! This is probably not a problem with npm. There is likely additional logging output above.\n\n" +
			"npm ERR! A complete log of this run can be found in:\nnpm ERR!     /root/.npm/_logs/2024-05-01T10_00_00_000Z-debug.log\n"
		return b, []string{s, e}
	}},
	{"pip resolve", func(r *rand.Rand) (string, []string) {
		e := fmt.Sprintf("ERROR: Could not find a version that satisfies the requirement torch==%d.9 (from versions: 1.13.1, 2.0.0, 2.1.2)\nERROR: No matching distribution found for torch==%d.9", 3+r.Intn(5), 3+r.Intn(5))
		return e + "\n", []string{e}
	}},
	{"make stop", func(r *rand.Rand) (string, []string) {
		e := fmt.Sprintf("Makefile:%d: *** missing separator.  Stop.", 5+r.Intn(90))
		return e + "\n", []string{e}
	}},
	{"oom killed", func(r *rand.Rand) (string, []string) {
		e := fmt.Sprintf("/home/runner/work/_temp/%x.sh: line 1:  %d Killed                  node --max-old-space-size=4096 build.js", r.Intn(1<<30), 1000+r.Intn(9000))
		return e + "\n", []string{e}
	}},
	{"runner timeout", func(r *rand.Rand) (string, []string) {
		e := fmt.Sprintf("The job running on runner GitHub Actions %d has exceeded the maximum execution time of %d minutes.", r.Intn(99), 60+r.Intn(300))
		return e + "\n", []string{e}
	}},
	{"network", func(r *rand.Rand) (string, []string) {
		e1 := "fatal: unable to access 'https://github.com/acme/vendor.git/': Could not resolve host: github.com"
		e2 := fmt.Sprintf("curl: (56) Recv failure: Connection reset by peer (after %d bytes)", r.Intn(99999))
		return e1 + "\n" + e2 + "\n", []string{e1, e2}
	}},
}

// goTestName is testName as a Go test function name.
func goTestName(i int) string {
	var b strings.Builder
	for _, w := range strings.Fields(testName(i)) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// zooDialects are CI systems beyond buildDialects.
var zooDialects = []buildDialect{
	{"azure pipelines", func(b *strings.Builder, name string, out []string, exit int) {
		ts := "2024-05-01T10:00:00.1234567Z "
		fmt.Fprintf(b, "%s##[section]Starting: %s\n%s==============================================================================\n", ts, name, ts)
		fmt.Fprintf(b, "%sTask         : Command line\n%sVersion      : 2.212.0\n%s==============================================================================\n", ts, ts, ts)
		fmt.Fprintf(b, "%sGenerating script.\n%s========================== Starting Command Output ===========================\n", ts, ts)
		fmt.Fprintf(b, "%s[command]/usr/bin/bash --noprofile --norc /home/vsts/work/_temp/a1b2.sh\n", ts)
		for _, l := range out {
			b.WriteString(ts + l + "\n")
		}
		if exit != 0 {
			fmt.Fprintf(b, "%s##[error]Bash exited with code '%d'.\n", ts, exit)
		}
		fmt.Fprintf(b, "%s##[section]Finishing: %s\n", ts, name)
	}, "2024-05-01T10:00:00.1234567Z "},
	{"circleci", func(b *strings.Builder, name string, out []string, exit int) {
		fmt.Fprintf(b, "#!/bin/bash -eo pipefail\n%s\n", name)
		for _, l := range out {
			b.WriteString(l + "\n")
		}
		if exit != 0 {
			fmt.Fprintf(b, "\nExited with code exit status %d\n", exit)
		}
	}, ""},
	{"teamcity", func(b *strings.Builder, name string, out []string, exit int) {
		fmt.Fprintf(b, "##teamcity[blockOpened name='%s']\n", name)
		for _, l := range out {
			b.WriteString(l + "\n")
		}
		if exit != 0 {
			fmt.Fprintf(b, "Process exited with code %d\n##teamcity[buildProblem description='Process exited with code %d']\n", exit, exit)
		}
		fmt.Fprintf(b, "##teamcity[blockClosed name='%s']\n", name)
	}, ""},
	{"drone", func(b *strings.Builder, name string, out []string, exit int) {
		fmt.Fprintf(b, "+ %s\n", name)
		for _, l := range out {
			b.WriteString(l + "\n")
		}
		if exit != 0 {
			fmt.Fprintf(b, "exit code %d\n", exit)
		}
	}, ""},
}

// zooNoise is toolNoise with the passing output of more tools: cargo
// compiles, go test runs, pytest dots, jest suites, gradle tasks, bazel
// progress, docker layers, compiler warnings, npm progress.
func zooNoise(r *rand.Rand, n int) []string {
	out := toolNoise(r, n)
	for i := range out {
		switch r.Intn(12) {
		case 0:
			out[i] = fmt.Sprintf("   Compiling %s v%d.%d.%d", pick(r, "serde", "tokio", "regex", "syn", "quote", "libc", "rand"), r.Intn(3), r.Intn(40), r.Intn(20))
		case 1:
			out[i] = fmt.Sprintf("tests/test_%s.py ........................ [ %2d%%]", pick(r, "cart", "api", "db", "auth"), r.Intn(100))
		case 2:
			out[i] = fmt.Sprintf("PASS src/%s.test.js (%d.%03d s)", strings.ReplaceAll(testName(r.Intn(400)), " ", "-"), r.Intn(9), r.Intn(999))
		case 3:
			out[i] = fmt.Sprintf("> Task :%s:%s UP-TO-DATE", pick(r, "app", "core", "api"), pick(r, "compileJava", "processResources", "classes", "jar"))
		case 4:
			out[i] = fmt.Sprintf("[%d / %d] Compiling src/%s.cc; %ds linux-sandbox", r.Intn(2000), 2000, pick(r, "a", "b", "c", "d"), r.Intn(9))
		case 5:
			out[i] = fmt.Sprintf("#%d sha256:%x %d.%dMB / 45.1MB %d.%ds", r.Intn(20), r.Int63(), r.Intn(45), r.Intn(9), r.Intn(9), r.Intn(9))
		case 6:
			out[i] = fmt.Sprintf("src/util.c:%d:%d: warning: unused variable 'tmp%d' [-Wunused-variable]", r.Intn(300), r.Intn(20), r.Intn(5))
		case 7:
			out[i] = fmt.Sprintf("--- PASS: Test%s (0.%02ds)", goTestName(r.Intn(400)), r.Intn(99))
		}
	}
	return out
}

// zooLog writes a failed build in a dialect ending in a failure, and
// returns it with the reasons, prefixed as the dialect writes them.
func zooLog(d buildDialect, f zooFailure, seed int64) (string, []string) {
	return zooLogWith(d, f, seed, nil)
}

// zooLogWith is zooLog with the failure block and its reasons rewritten
// by tf (colours, say) when tf is not nil.
func zooLogWith(d buildDialect, f zooFailure, seed int64, tf func(string) string) (string, []string) {
	r := rand.New(rand.NewSource(seed))
	var b strings.Builder
	for _, s := range []string{"npm ci", "cargo build --release", "./gradlew assemble"} {
		d.step(&b, s, zooNoise(r, 150+r.Intn(150)), 0)
	}
	block, reasons := f.gen(r)
	if tf != nil {
		block = tf(block)
		for i := range reasons {
			reasons[i] = tf(reasons[i])
		}
	}
	out := zooNoise(r, 100+r.Intn(200))
	out = append(out, strings.Split(strings.TrimSuffix(block, "\n"), "\n")...)
	for i := 0; i < 2+r.Intn(5); i++ {
		out = append(out, fmt.Sprintf("Uploading artifact part %d", i+1))
	}
	d.step(&b, "make test", out, 1+r.Intn(3))
	for i, rs := range reasons {
		ls := strings.Split(rs, "\n")
		for j := range ls {
			ls[j] = d.prefix + ls[j]
		}
		reasons[i] = strings.Join(ls, "\n")
	}
	return b.String(), reasons
}

var zooDigits = regexp.MustCompile(`[0-9]+`)

// tenLineBaseline is the script a user tries first: mask digit runs, keep
// the first line of each masked pattern.
func tenLineBaseline(text string) string {
	seen := map[string]bool{}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		k := zooDigits.ReplaceAllString(l, "0")
		if !seen[k] {
			seen[k] = true
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// BuildZooKnownGap is the known gap of the zoo log named, or "".
func BuildZooKnownGap(name string) string { return zooKnownGaps[strings.Split(name, "/")[0]] }

// BuildZooLogs gives the external budget test every zoo log: dialect,
// failure, seed, the log and its reasons.
func BuildZooLogs(visit func(name string, log string, reasons []string)) {
	for di, d := range append(append([]buildDialect{}, buildDialects...), zooDialects...) {
		for fi, f := range zooFailures {
			for seed := int64(0); seed < 2; seed++ {
				log, reasons := zooLog(d, f, int64(di*1000+fi*10)+seed)
				visit(fmt.Sprintf("%s/%s/%d", d.name, f.name, seed), log, reasons)
			}
		}
	}
}

// zooKnownGaps are dialects whose passing noise does not fold yet, with
// the reason; their reasons are still checked.
var zooKnownGaps = map[string]string{
	"drone": "its steps open with a shell trace (+ cmd), which is no step header: a traced script's own \"+ exit 1\" would cut a failure from its reason",
}

// Every (dialect × failure) of the zoo: the reasons are kept, the passing
// noise folds to a quarter or less, and the output is no larger than the
// ten-line baseline's.
// inShortSample keeps every third case of a zoo under -short (the
// one-minute loop); CI runs them all.
func inShortSample(i int) bool { return !testing.Short() || i%3 == 0 }

func TestBuildZoo(t *testing.T) {
	var inAll, outAll, baseAll int
	loggedGap := map[string]bool{}
	n := 0
	BuildZooLogs(func(name, in string, reasons []string) {
		if n++; !inShortSample(n) {
			return
		}
		out := defaultChain(t, in)
		for _, rs := range reasons {
			if !keptLoosely(out, rs) {
				t.Errorf("%s: reason lost: %q", name, rs)
			}
		}
		base := tenLineBaseline(in)
		if gap, ok := zooKnownGaps[strings.Split(name, "/")[0]]; ok {
			if !loggedGap[gap] {
				loggedGap[gap] = true
				t.Logf("%s: known gap, ratio not checked: %s", name, gap)
			}
		} else {
			if len(out) > len(in)/4 {
				t.Errorf("%s: %d of %d bytes kept", name, len(out), len(in))
			}
			if len(out) > len(base) {
				t.Errorf("%s: %d bytes, the ten-line baseline %d", name, len(out), len(base))
			}
		}
		inAll, outAll, baseAll = inAll+len(in), outAll+len(out), baseAll+len(base)
	})
	t.Logf("ratio %.4f, ten-line baseline %.4f", float64(outAll)/float64(inAll), float64(baseAll)/float64(inAll))
}

// The zoo dialects' steps are found: four, the last failed (drone aside,
// see zooKnownGaps); idle Gradle tasks open none. These dialects print no
// status for a step that passed: in a failed build, that step folds.
func TestBuildZooSteps(t *testing.T) {
	for _, d := range zooDialects {
		if zooKnownGaps[d.name] != "" {
			continue
		}
		in, _ := zooLog(d, zooFailures[0], 1)
		steps := findSteps(textkit.NewLineIndex(in))
		failed := 0
		for _, s := range steps {
			if s.failed() {
				failed++
			}
		}
		if len(steps) < 4 || failed != 1 || !steps[len(steps)-1].failed() {
			t.Errorf("%s: %d steps, %d failing; want 4 or more, the last failing", d.name, len(steps), failed)
		}
	}
	if code, ok := exitStatus("2024-05-01T10:00:00.1234567Z ##[error]Bash exited with code '2'."); code != 2 || !ok {
		t.Errorf("Azure exit read as %d, %v", code, ok)
	}
	for _, l := range []string{"> Task :app:jar UP-TO-DATE", "> Task :core:processResources NO-SOURCE", "> Task :api:test SKIPPED", "> Task :app:compileJava FROM-CACHE"} {
		if stepHeader(l) {
			t.Errorf("%q read as a step header", l)
		}
	}
	for _, l := range []string{"> Task :app:compileJava", "> Task :app:test FAILED", "##[section]Starting: Build",
		"##teamcity[blockOpened name='Compile']", "#!/bin/bash -eo pipefail"} {
		if !stepHeader(l) {
			t.Errorf("%q not read as a step header", l)
		}
	}
}

// A failure far above the exit: 400 lines of passing output after it, well
// past the failing step's kept tail. Each reason survives on its own words.
func TestBuildZooReasonFarFromExit(t *testing.T) {
	for di, d := range append(append([]buildDialect{}, buildDialects...), zooDialects...) {
		for fi, f := range zooFailures {
			if !inShortSample(di + fi) {
				continue
			}
			r := rand.New(rand.NewSource(int64(di*1000 + fi)))
			var b strings.Builder
			d.step(&b, "npm ci", zooNoise(r, 200), 0)
			block, reasons := f.gen(r)
			out := append(zooNoise(r, 100), strings.Split(strings.TrimSuffix(block, "\n"), "\n")...)
			d.step(&b, "make test", append(out, zooNoise(r, 400)...), 1)
			got := defaultChain(t, b.String())
			for _, rs := range reasons {
				ls := strings.Split(rs, "\n")
				for j := range ls {
					ls[j] = d.prefix + ls[j]
				}
				if !keptLoosely(got, strings.Join(ls, "\n")) {
					t.Errorf("%s/%s: reason lost: %q", d.name, f.name, rs)
				}
			}
		}
	}
}

var zooColorWords = regexp.MustCompile(`(?i)\b(error|failed|fail|panic|fatal|killed)\b`)

// zooColor paints failure words red and cargo's span arrow blue, as
// coloured tools print them (the sample's labels hold such escapes).
func zooColor(s string) string {
	s = zooColorWords.ReplaceAllString(s, "\x1b[1;31m$1\x1b[0m")
	return strings.ReplaceAll(s, "-->", "\x1b[0m\x1b[1m\x1b[38;5;12m-->\x1b[0m")
}

// The zoo written by Windows runners (CRLF) and by coloured tools (ANSI
// escapes in the failure and its reasons): reasons kept, noise folded.
func TestBuildZooTransforms(t *testing.T) {
	if testing.Short() {
		t.Skip("every build format under every transform")
	}
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	for _, tc := range []struct {
		name     string
		block    func(string) string // the failure block and reasons
		whole    func(string) string // the whole log
		tfReason func(string) string
	}{
		{"crlf", nil, crlf, crlf},
		{"ansi", zooColor, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for di, d := range append(append([]buildDialect{}, buildDialects...), zooDialects...) {
				for fi, f := range zooFailures {
					in, reasons := zooLogWith(d, f, int64(di*1000+fi*10), tc.block)
					if tc.whole != nil {
						in = tc.whole(in)
					}
					out := defaultChain(t, in)
					for _, rs := range reasons {
						if tc.tfReason != nil {
							rs = tc.tfReason(rs)
						}
						if !keptLoosely(out, rs) {
							t.Errorf("%s/%s: reason lost: %q", d.name, f.name, rs)
						}
					}
					if zooKnownGaps[d.name] == "" && len(out) > len(in)/4 {
						t.Errorf("%s/%s: %d of %d bytes kept", d.name, f.name, len(out), len(in))
					}
				}
			}
		})
	}
}

// Crates named like failures ("failure", "quick-error") in cargo's
// progress lines are no signal; a compile error naming one still is.
func TestBuildZooCargoBanners(t *testing.T) {
	for _, l := range []string{"   Compiling failure v0.1.8", "   Compiling quick-error v2.0.1",
		"  Downloaded error-chain v0.12.4", "    Checking panic-message v0.3.0 (/src/panic-message)"} {
		if s := lineSignal(l); s != 0 {
			t.Errorf("lineSignal(%q) = %d, want 0", l, s)
		}
	}
	for _, l := range []string{"error: could not compile `failure` (lib) due to 2 previous errors",
		"Compiling failed: out of memory"} {
		if s := lineSignal(l); s < 3 {
			t.Errorf("lineSignal(%q) = %d, want 3", l, s)
		}
	}
}

// A compiler warning whose quoted code names an error is a warning; a
// failure tag before the word "warning:" still makes a failure.
func TestBuildZooWarningsQuotingErrors(t *testing.T) {
	for _, l := range []string{"warning: unused import: `std::error::Error`",
		"src/util.c:12:7: warning: unused variable 'error' [-Wunused-variable]",
		"2024-05-01T10:00:00.1234567Z warning: field `panic` is never read"} {
		if s := lineSignal(l); s != 2 {
			t.Errorf("lineSignal(%q) = %d, want 2", l, s)
		}
	}
	for _, l := range []string{"error: unused variable 'x' (warning: treated as error)", "FAILED: warning: deprecated flag"} {
		if s := lineSignal(l); s != 3 {
			t.Errorf("lineSignal(%q) = %d, want 3", l, s)
		}
	}
}
