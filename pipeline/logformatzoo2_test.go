package pipeline

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A second zoo: formats shaped like the other LogHub systems (Zookeeper,
// Thunderbird, Windows CBS, Mac, HPC, HealthApp, Proxifier, OpenStack,
// Android) and common server logs (journald, Postgres, MySQL, Redis,
// Kafka, Elasticsearch, Apache error, Windows events, CI with ANSI,
// multi-line messages) and application loggers (Go, Ruby, Heroku, hclog,
// Java's Date, Elixir, gunicorn, Tomcat, .NET's console, epoch stamps,
// Python's basicConfig, java.util.logging, AWS Lambda, JSON from GCP, ECS,
// Serilog and pino), and four formats whose messages carry values of other
// kinds (valueTemplates). Each is measured against the "ten-line script"
// baseline: keep the first line of each digit-masked pattern. We must beat
// it on coverage and on ratio. Nothing here comes from a real log.

// eventTemplates are LogHub-like messages: short event names that differ
// by one word, key:value and key=value shapes, and rare alerts.
var eventTemplates = []zooTemplate{
	{msg: "onStandStepChanged %s", level: "INFO", slots: []zooSlot{{"steps", zNum(1, 9000)}}},
	{msg: "onExtend:%s %s %s %s", level: "DEBUG", slots: []zooSlot{{"ts", zNum(1e12, 2e12)}, {"a", zNum(0, 30)}, {"b", zNum(0, 5)}, {"c", zNum(0, 9)}}},
	{msg: "Connection from %s port %s", level: "INFO", slots: []zooSlot{{"ip", zIP}, {"port", zNum(1024, 65535)}}},
	{msg: "REPORT : %s %s %s %s", level: "INFO", slots: []zooSlot{{"a", zNum(0, 9000)}, {"b", zNum(0, 300)}, {"c", zNum(0, 2)}, {"d", zNum(0, 20)}}},
	{msg: "flush sensor data", level: "DEBUG"},
	{msg: "openDrawer", level: "INFO"},
	{msg: "closeDrawer", level: "INFO"},
	{msg: "Expiring session 0x%s, timeout of %sms exceeded", level: "INFO", slots: []zooSlot{{"session", zHex}, {"ms", zNum(1000, 90000)}}},
	{msg: "session opened for user %s by (uid=%s)", level: "INFO", slots: []zooSlot{{"user", zUser}, {"uid", zNum(0, 2000)}}},
	{msg: "Notification time out: %s", level: "INFO", slots: []zooSlot{{"ms", zNum(200, 60000)}}},
	{msg: "getTodayTotalDetailSteps = %s##%s##%s", level: "DEBUG", slots: []zooSlot{{"day", zNum(20170101, 20171231)}, {"a", zNum(0, 9000)}, {"b", zNum(0, 300)}}},
	{msg: "Loaded Servicing Stack v%s with Core: %s", level: "INFO", slots: []zooSlot{{"ver", func(r *rand.Rand) string { return fmt.Sprintf("6.1.%d.%d", 7600+r.IntN(1000), r.IntN(30000)) }}, {"path", zPath}}},
	{msg: "Received disconnect from %s: 11: Bye Bye", level: "INFO", slots: []zooSlot{{"ip", zIP}}},
	{msg: "user %s added to group admins", level: "WARN", slots: []zooSlot{{"user", zUser}}},
	// Rare alerts.
	{msg: "Failed to write block %s to %s: No space left on device", level: "ERROR", slots: []zooSlot{{"blk", zNum(1e8, 9e8)}, {"path", zPath}}, alert: true, trace: true},
	{msg: "Kernel panic - not syncing: Fatal exception in interrupt", level: "FATAL", alert: true},
	{msg: "instruction cache parity error corrected", level: "ERROR", alert: true},
	{msg: "exception while handling request %s", level: "ERROR", slots: []zooSlot{{"req", zUUID}}, alert: true, trace: true},
}

// netTemplates are records full of addresses and generated names: a
// firewall's key=value report with a MAC, Kubernetes pod names, REST paths.
var netTemplates = []zooTemplate{
	{msg: "[UFW BLOCK] IN=eth0 OUT= MAC=%s SRC=%s DST=10.0.0.5 LEN=%s TOS=0x00 PREC=0x00 TTL=%s ID=%s PROTO=TCP SPT=%s DPT=%s WINDOW=1024 RES=0x00 SYN URGP=0", level: "INFO",
		slots: []zooSlot{{"mac", zMAC}, {"src", zIP}, {"len", zNum(40, 60)}, {"ttl", zNum(40, 250)}, {"id", zNum(1, 65535)}, {"spt", zNum(1024, 65535)}, {"dpt", zNum(1, 1024)}}},
	{msg: "Reconciling pod default/%s", level: "INFO", slots: []zooSlot{{"pod", zPod}}},
	{msg: "Successfully assigned default/%s to %s", level: "INFO", slots: []zooSlot{{"pod", zPod}, {"node", func(r *rand.Rand) string { return fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", r.IntN(256), r.IntN(256)) }}}},
	{msg: "GET /api/v1/%s/%s 200 %sms", level: "INFO", slots: []zooSlot{{"res", func(r *rand.Rand) string {
		return []string{"users", "orders", "items", "carts", "sessions", "invoices"}[r.IntN(6)]
	}},
		{"id", zNum(1, 99999)}, {"ms", zNum(1, 900)}}},
	{msg: "neighbour %s is reachable", level: "DEBUG", slots: []zooSlot{{"ip6", func(r *rand.Rand) string {
		return fmt.Sprintf("fe80::%x:%x:%x:%x", r.IntN(65536), r.IntN(65536), r.IntN(65536), r.IntN(65536))
	}}}},
	{msg: "cache miss for key user:%s:profile", level: "DEBUG", slots: []zooSlot{{"user", zNum(1, 100000)}}},
	{msg: "password reset requested for %s", level: "INFO", slots: []zooSlot{{"email", zPick("alice@example.com", "bob.smith@corp.example.org", "carol@mail.test")}}},
	{msg: "connected to %s in %sms", level: "INFO", slots: []zooSlot{{"host", zPick("api.example.com", "db.internal", "mirror.cse.cuhk.edu.hk")}, {"ms", zNum(1, 900)}}},
	{msg: "disk quota exceeded for volume %s", level: "ERROR", slots: []zooSlot{{"vol", zPath}}, alert: true},
	{msg: "certificate for %s expires in 3 days", level: "WARN", slots: []zooSlot{{"host", zIP}}, alert: true},
}

// queryTemplates carry URLs whose query values vary: a search term or a
// category from a pool, a page number, a sort order.
var queryTemplates = []zooTemplate{
	{msg: "fetching https://api.example.com/v1/search?q=%s&page=%s", level: "INFO", slots: []zooSlot{{"q", zPool("w", 40)}, {"page", zNum(1, 20)}}},
	{msg: "GET /products?category=%s&sort=%s took %sms", level: "INFO", slots: []zooSlot{{"category", zPool("c", 30)}, {"sort", zPick("price", "name", "rating")}, {"ms", zNum(1, 900)}}},
	{msg: "redirect to /login?next=%s", level: "INFO", slots: []zooSlot{{"next", zPool("p", 25)}}},
	{msg: "cache warmed", level: "INFO"},
	{msg: "upstream https://pay.example.com/charge?order=%s&retry=%s failed", level: "ERROR", alert: true, slots: []zooSlot{{"order", zNum(1000, 9999)}, {"retry", zNum(1, 3)}}},
}

// ideographTemplates are Chinese messages, a name or a number written
// without a blank between it and the words around it.
var ideographTemplates = []zooTemplate{
	{msg: "用户%s登录成功", level: "INFO", slots: []zooSlot{{"user", zPool("u", 60)}}},
	{msg: "用户%s退出登录", level: "INFO", slots: []zooSlot{{"user", zPool("u", 60)}}},
	{msg: "订单%s已支付，金额%s元", level: "INFO", slots: []zooSlot{{"order", zNum(10000, 99999)}, {"amount", zNum(1, 999)}}},
	{msg: "缓存刷新完成", level: "INFO"},
	{msg: "用户%s上传文件%s", level: "INFO", slots: []zooSlot{{"user", zPool("u", 60)}, {"file", zNum(1, 99999)}}},
	{msg: "连接数据库%s失败", level: "ERROR", alert: true, slots: []zooSlot{{"db", zPick("db1", "db2")}}},
}

// quotedNameTemplates quote their names: 'user', `table`, "queue".
var quotedNameTemplates = []zooTemplate{
	{msg: "user '%s' logged in", level: "INFO", slots: []zooSlot{{"user", zPool("u", 40)}}},
	{msg: "table `%s` vacuumed in %sms", level: "INFO", slots: []zooSlot{{"table", zPool("t", 20)}, {"ms", zNum(1, 900)}}},
	{msg: "consumer joined queue \"%s\"", level: "INFO", slots: []zooSlot{{"queue", zPool("q", 24)}}},
	{msg: "cache warmed", level: "INFO"},
	{msg: "role '%s' denied", level: "ERROR", alert: true, slots: []zooSlot{{"role", zPick("admin", "root")}}},
}

// poolTemplates draw their names from pools where every name recurs.
var poolTemplates = []zooTemplate{
	{msg: "session opened for user %s", level: "INFO", slots: []zooSlot{{"user", zPool("user", 24)}}},
	{msg: "vacuum of table %s took %sms", level: "INFO", slots: []zooSlot{{"table", zPool("tbl", 20)}, {"ms", zNum(1, 900)}}},
	{msg: "user %s logged out", level: "INFO", slots: []zooSlot{{"user", zPool("user", 24)}}},
	{msg: "openDrawer", level: "INFO"},
	{msg: "closeDrawer", level: "INFO"},
	{msg: "flushQueue", level: "DEBUG"},
	{msg: "disk full on %s", level: "ERROR", slots: []zooSlot{{"path", zPath}}, alert: true},
}

// zPool picks one of n names made of letters, all of which recur.
func zPool(prefix string, n int) func(r *rand.Rand) string {
	return func(r *rand.Rand) string {
		k := r.IntN(n)
		return fmt.Sprintf("%s%c%c", prefix, 'a'+k%26, 'a'+k/26*3+k%7)
	}
}

// zPick picks one of a few values: too few for variant merging to find.
func zPick(values ...string) func(r *rand.Rand) string {
	return func(r *rand.Rand) string { return values[r.IntN(len(values))] }
}

// zMAC is a MAC address; its groups of hex letters ("fa", "be") are no words.
func zMAC(r *rand.Rand) string {
	return fmt.Sprintf("52:54:00:%02x:%02x:%02x:fa:16:3e:%02x:%02x:%02x:08:00", r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256))
}

// zPod is a Deployment's pod name: the pod template's hash (ten
// characters) and a suffix (five), from Kubernetes' alphabet without
// vowels; some hashes hold no digit.
func zPod(r *rand.Rand) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	rnd := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	return fmt.Sprintf("%s-%s-%s", []string{"web", "api", "worker"}[r.IntN(3)], rnd(10), rnd(5))
}

// zooOpts are the renderings a metamorphic check varies: host names, the
// base of sequence ids (across a width boundary), the time stamp layout.
type zooOpts struct {
	hosts  []string
	idBase int
	layout string // "" keeps the format's own
}

func (o zooOpts) host(seq int) string { return o.hosts[(seq*7+seq/13)%len(o.hosts)] }
func (o zooOpts) id(seq int) int      { return o.idBase + seq }
func (o zooOpts) ts(at time.Time, layout string) string {
	if o.layout != "" {
		layout = o.layout
	}
	return at.Format(layout)
}

var defaultZooOpts = zooOpts{hosts: []string{"dn228", "dn73", "bn1045", "en12", "cn9"}, idBase: 1}

// tplPick picks one of choices by the template, stably.
func tplPick(e zooEvent, choices ...string) string {
	h := fnv.New32a()
	h.Write([]byte(e.t.msg))
	return choices[int(h.Sum32())%len(choices)]
}

type zoo2Format struct {
	name string
	// sections: lines before the record are structure (CI sections).
	sections bool
	// whole: a record's continuation lines (fields, details) are part of
	// it, and the oracle keeps each template's first record whole.
	whole  bool
	tpls   []zooTemplate
	render func(e zooEvent, o zooOpts) []string
}

func sqlLines() []string {
	return []string{"STATEMENT:  INSERT INTO blocks (id, path)", "VALUES ($1, $2)", "RETURNING id"}
}

// valueTemplates carry values of other kinds than eventTemplates':
// durations like 6m31.0s, URLs with queries, bracketed lists of varying
// length, embedded JSON, sizes and percentages, versions, non-ASCII units,
// fractions, quoted SQL, signed decimals, ratios, quoted search phrases
// of two to four words, quoted words from a small vocabulary, each
// recurring (commands, users), lists written out in the sentence ("keys
// cart, token"), one item or several, counts with thousands separators
// (1,234,567) and without, and long hex digests.
var valueTemplates = []zooTemplate{
	{msg: "job %s finished in %s with exit code 0", level: "INFO", slots: []zooSlot{{"job", zNum(1000, 99999)}, {"dur", func(r *rand.Rand) string { return fmt.Sprintf("%dm%d.%ds", r.IntN(9), r.IntN(60), r.IntN(10)) }}}},
	{msg: "GET %s returned %s in %sms", level: "INFO", slots: []zooSlot{{"url", func(r *rand.Rand) string {
		return fmt.Sprintf("https://api.example.com/v2/items?page=%d&limit=%d", r.IntN(50), 10*(1+r.IntN(5)))
	}}, {"status", zPick("200", "201", "204")}, {"ms", zNum(1, 999)}}},
	{msg: "loaded %s plugins: %s", level: "INFO", slots: []zooSlot{{"n", zNum(2, 9)}, {"list", func(r *rand.Rand) string {
		all := []string{"auth", "cache", "metrics", "tracing", "ratelimit", "gzip"}
		r.Shuffle(len(all), func(a, b int) { all[a], all[b] = all[b], all[a] })
		return "[" + strings.Join(all[:2+r.IntN(3)], ", ") + "]"
	}}}},
	{msg: "payload accepted: %s", level: "DEBUG", slots: []zooSlot{{"json", func(r *rand.Rand) string {
		return fmt.Sprintf(`{"id":%d,"ok":true,"tags":["x","y"]}`, r.IntN(1e6))
	}}}},
	{msg: "memory usage %s (%s%% of limit)", level: "INFO", slots: []zooSlot{{"size", func(r *rand.Rand) string { return fmt.Sprintf("%d.%dGiB", r.IntN(8), r.IntN(10)) }}, {"pct", func(r *rand.Rand) string { return fmt.Sprintf("%d.%d", 40+r.IntN(50), r.IntN(10)) }}}},
	{msg: "version %s deployed by %s", level: "INFO", slots: []zooSlot{{"ver", func(r *rand.Rand) string { return fmt.Sprintf("v1.%d.%d-rc.%d", r.IntN(20), r.IntN(10), r.IntN(5)) }}, {"user", zUser}}},
	{msg: "temperature %s°C on sensor %s", level: "DEBUG", slots: []zooSlot{{"t", func(r *rand.Rand) string { return fmt.Sprintf("%d.%d", 20+r.IntN(40), r.IntN(10)) }}, {"sensor", func(r *rand.Rand) string { return fmt.Sprintf("T%d", r.IntN(40)) }}}},
	{msg: "processed batch %s in %s", level: "INFO", slots: []zooSlot{{"frac", func(r *rand.Rand) string { n := 1 + r.IntN(50); return fmt.Sprintf("%d/%d", 1+r.IntN(n), n) }}, {"dur", zDur}}},
	{msg: "query \"%s\" returned %s rows", level: "DEBUG", slots: []zooSlot{{"sql", func(r *rand.Rand) string { return fmt.Sprintf("SELECT * FROM orders WHERE id = %d", r.IntN(1e6)) }}, {"rows", zNum(0, 500)}}},
	{msg: "balance for account %s is %s", level: "INFO", slots: []zooSlot{{"acct", func(r *rand.Rand) string { return fmt.Sprintf("ACC-%06d", r.IntN(1e6)) }}, {"bal", func(r *rand.Rand) string { return fmt.Sprintf("%d.%02d", r.IntN(20000)-10000, r.IntN(100)) }}}},
	{msg: "cache hit ratio %s over last %s requests", level: "DEBUG", slots: []zooSlot{{"ratio", func(r *rand.Rand) string { return fmt.Sprintf("0.%03d", r.IntN(1000)) }}, {"n", zNum(100, 10000)}}},
	{msg: "search for \"%s\" returned %s results", level: "INFO", slots: []zooSlot{{"q", func(r *rand.Rand) string {
		words := []string{"red", "shoes", "blue", "running", "size", "cheap", "leather", "boots", "summer", "dress", "kids", "jacket"}
		q := words[r.IntN(len(words))]
		for range 1 + r.IntN(3) {
			q += " " + words[r.IntN(len(words))]
		}
		return q
	}}, {"n", zNum(0, 500)}}},
	{msg: "evicted keys %s from cache", level: "DEBUG", slots: []zooSlot{{"keys", func(r *rand.Rand) string {
		all := []string{"session", "profile", "cart", "token", "avatar", "quota"}
		r.Shuffle(len(all), func(a, b int) { all[a], all[b] = all[b], all[a] })
		return strings.Join(all[:1+r.IntN(4)], ", ")
	}}}},
	{msg: "imported %s rows from %s", level: "INFO", slots: []zooSlot{{"rows", func(r *rand.Rand) string {
		s := strconv.Itoa(r.IntN(5_000_000) >> uint(r.IntN(20)))
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	}}, {"file", zPath}}},
	{msg: "unknown command '%s' from client %s", level: "WARN", slots: []zooSlot{{"cmd", zPick("stat", "flush", "dump", "reload", "peek", "drain", "sync", "trace")}, {"client", zNum(1, 500)}}},
	{msg: "cart restored for \"%s\" with %s items", level: "INFO", slots: []zooSlot{{"user", zPick("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy")}, {"n", zNum(1, 30)}}},
	// Rare alerts.
	{msg: "checksum mismatch for %s: expected %s got %s", level: "ERROR", slots: []zooSlot{{"file", zPath}, {"exp", func(r *rand.Rand) string { return fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64()) }}, {"got", func(r *rand.Rand) string { return fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64()) }}}, alert: true},
	{msg: "pointer 0x%s freed twice", level: "FATAL", slots: []zooSlot{{"ptr", zHex}}, alert: true, trace: true},
	{msg: "thread pool exhausted, rejecting task %s", level: "ERROR", slots: []zooSlot{{"task", zUUID}}, alert: true},
}

var zoo2Formats = []zoo2Format{
	{name: "Zookeeper", render: func(e zooEvent, o zooOpts) []string {
		thread := tplPick(e, "QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181", "NIOServerCxn.Factory:0.0.0.0/0.0.0.0:2181", "SyncThread:1", "WorkerReceiver[myid=3]")
		class := tplPick(e, "FastLeaderElection@774", "NIOServerCnxn@1001", "QuorumCnxManager$RecvWorker@765", "ZooKeeperServer@595", "Learner@233")
		return withTrace(e, fmt.Sprintf("%s - %-5s [%s:%s] - %s", o.ts(e.at, "2006-01-02 15:04:05,000"), e.level(), thread, class, e.message()), javaTrace)
	}},
	{name: "Thunderbird", render: func(e zooEvent, o zooOpts) []string {
		label := "-"
		if e.t.alert {
			label = tplPick(e, "VAPI", "ECC", "PBS_CON")
		}
		h := o.host(e.seq)
		proc := tplPick(e, "crond[%d]", "sshd[%d]", "kernel", "ntpd[%d]", "pbs_mom[%d]", "xinetd[%d]")
		if strings.Contains(proc, "%d") {
			proc = fmt.Sprintf(proc, 1000+(e.seq*37)%30000)
		}
		return []string{fmt.Sprintf("%s %d %s %s %s %s/%s %s: %s", label, e.at.Unix(), e.at.Format("2006.01.02"), h, o.ts(e.at, time.Stamp), h, h, proc, e.message())}
	}},
	{name: "Windows CBS", render: func(e zooEvent, o zooOpts) []string {
		lv := map[string]string{"DEBUG": "Info", "INFO": "Info", "WARN": "Warning", "ERROR": "Error", "FATAL": "Error"}[e.level()]
		comp := tplPick(e, "CBS", "CSI", "CBS")
		msg := e.message()
		if comp == "CSI" {
			msg = fmt.Sprintf("%08x %s", 1+e.seq, msg)
		}
		return []string{fmt.Sprintf("%s, %-22s%-7s%s", o.ts(e.at, "2006-01-02 15:04:05"), lv, comp, msg)}
	}},
	{name: "Mac syslog", render: func(e zooEvent, o zooOpts) []string {
		proc := tplPick(e, "com.apple.CDScheduler[%d]", "Google Chrome Helper[%d]", "kernel[0]", "QQ[%d]", "Microsoft Word[%d]", "WindowServer[%d]")
		if strings.Contains(proc, "%d") {
			proc = fmt.Sprintf(proc, 40+(e.seq*13)%900)
		}
		return []string{fmt.Sprintf("%s calvisitor-10-105-%s %s: %s", o.ts(e.at, time.Stamp), o.host(e.seq), proc, e.message())}
	}},
	{name: "HPC", render: func(e zooEvent, o zooOpts) []string {
		comp := tplPick(e, "unix.hw state_change.unavailable", "node boot_generic", "action start", "node psu")
		return []string{fmt.Sprintf("%d node-%d %s %d 1 %s", o.id(e.seq), (e.seq*31)%400, comp, e.at.Unix(), e.message())}
	}},
	{name: "HealthApp", render: func(e zooEvent, o zooOpts) []string {
		comp := tplPick(e, "Step_LSC", "Step_StandReportReceiver", "Step_SPUtils", "Step_ExtSDM", "HiH_HiHealthDataInsertStore")
		return []string{fmt.Sprintf("%s|%s|%d|%s", o.ts(e.at, "20060102-15:04:05:000"), comp, 30002312+(e.seq/500), e.message())}
	}},
	{name: "Proxifier", render: func(e zooEvent, o zooOpts) []string {
		app := []string{"chrome.exe", "Dropbox.exe", "WeChat.exe", "git-remote-https.exe"}[e.seq%4]
		return []string{fmt.Sprintf("[%s] %s - %s", o.ts(e.at, "01.02 15:04:05"), app, e.message())}
	}},
	{name: "OpenStack", render: func(e zooEvent, o zooOpts) []string {
		mod := tplPick(e, "nova.osapi_compute.wsgi.server", "nova.compute.manager", "nova.virt.libvirt.imagecache", "nova.metadata.wsgi.server")
		r := rand.New(rand.NewPCG(uint64(e.seq), 3))
		return withTrace(e, fmt.Sprintf("nova-api.log.1.2017-05-16_13:53:08 %s %d %s %s [req-%s %s %s - - -] %s", o.ts(e.at, "2006-01-02 15:04:05.000"), 25746+e.seq%3, e.level(), mod, zUUID(r), zHex(r), zHex(r), e.message()), pythonTrace)
	}},
	{name: "Android threadtime", render: func(e zooEvent, o zooOpts) []string {
		tag := tplPick(e, "WindowManager", "PowerManagerService", "ActivityManager", "Step_LSC", "DisplayPowerController")
		return []string{fmt.Sprintf("%s  %4d  %4d %c %s: %s", o.ts(e.at, "01-02 15:04:05.000"), 1702, 1702+(e.seq*7)%900, e.level()[0], tag, e.message())}
	}},
	{name: "journald short-iso", render: func(e zooEvent, o zooOpts) []string {
		proc := tplPick(e, "sshd", "systemd", "CRON", "kernel", "dockerd")
		return []string{fmt.Sprintf("%s %s %s[%d]: %s", o.ts(e.at, "2006-01-02T15:04:05-0700"), o.host(e.seq), proc, 300+(e.seq*11)%30000, e.message())}
	}},
	{name: "Postgres", render: func(e zooEvent, o zooOpts) []string {
		lv := map[string]string{"DEBUG": "DEBUG1", "INFO": "LOG", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "FATAL"}[e.level()]
		return withTrace(e, fmt.Sprintf("%s UTC [%d] %s:  %s", o.ts(e.at, "2006-01-02 15:04:05.000"), 4000+(e.seq*17)%9000, lv, e.message()), sqlLines)
	}},
	{name: "MySQL", render: func(e zooEvent, o zooOpts) []string {
		lv := map[string]string{"DEBUG": "Note", "INFO": "Note", "WARN": "Warning", "ERROR": "ERROR", "FATAL": "ERROR"}[e.level()]
		return []string{fmt.Sprintf("%s %d [%s] [MY-0%s] [Server] %s", o.ts(e.at, "2006-01-02T15:04:05.000000Z"), e.seq%40, lv, tplPick(e, "10051", "13360", "11071", "10116"), e.message())}
	}},
	{name: "Redis", render: func(e zooEvent, o zooOpts) []string {
		lv := map[string]string{"DEBUG": ".", "INFO": "*", "WARN": "#", "ERROR": "#", "FATAL": "#"}[e.level()]
		return []string{fmt.Sprintf("%d:%s %s %s %s", 1+e.seq/700, tplPick(e, "M", "S", "C"), o.ts(e.at, "02 Jan 2006 15:04:05.000"), lv, e.message())}
	}},
	{name: "Kafka", render: func(e zooEvent, o zooOpts) []string {
		class := tplPick(e, "kafka.server.ReplicaManager", "kafka.log.LogCleaner", "kafka.coordinator.group.GroupCoordinator", "kafka.controller.KafkaController")
		return withTrace(e, fmt.Sprintf("[%s] %s %s (%s)", o.ts(e.at, "2006-01-02 15:04:05,000"), e.level(), e.message(), class), javaTrace)
	}},
	{name: "Elasticsearch JSON", render: func(e zooEvent, o zooOpts) []string {
		comp := tplPick(e, "o.e.c.r.a.AllocationService", "o.e.n.Node", "o.e.g.GatewayService", "o.e.c.s.MasterService")
		msg, _ := jsonQuote(e.message())
		return []string{fmt.Sprintf(`{"type": "server", "timestamp": "%s", "level": "%s", "component": "%s", "cluster.name": "prod", "node.name": "%s", "message": %s, "cluster.uuid": "pL3xq9bTQ8uYk2", "node.id": "Zr7%s"  }`, o.ts(e.at, "2006-01-02T15:04:05,000Z"), e.level(), comp, o.host(e.seq), msg, o.host(e.seq))}
	}},
	{name: "Apache error", render: func(e zooEvent, o zooOpts) []string {
		lv := map[string]string{"DEBUG": "debug", "INFO": "notice", "WARN": "warn", "ERROR": "error", "FATAL": "emerg"}[e.level()]
		return []string{fmt.Sprintf("[%s] [%s] %s", o.ts(e.at, "Mon Jan 02 15:04:05 2006"), lv, e.message())}
	}},
	{name: "Windows events", render: func(e zooEvent, o zooOpts) []string {
		lv := map[string]string{"DEBUG": "Information", "INFO": "Information", "WARN": "Warning", "ERROR": "Error", "FATAL": "Critical"}[e.level()]
		src := tplPick(e, "Service Control Manager", "Microsoft-Windows-Kernel-General", "Schannel", "Application Error")
		return []string{fmt.Sprintf("%s\t%s\t%s\t%s\tNone\t%s", lv, o.ts(e.at, "1/2/2006 3:04:05 PM"), src, tplPick(e, "7036", "16", "36887", "1000", "7040"), e.message())}
	}},
	{name: "GitLab CI logrus TTY", sections: true, render: func(e zooEvent, o zooOpts) []string {
		color := map[string]string{"DEBUG": "37", "INFO": "36", "WARN": "33", "ERROR": "31", "FATAL": "31"}[e.level()]
		lv := map[string]string{"DEBUG": "DEBU", "INFO": "INFO", "WARN": "WARN", "ERROR": "ERRO", "FATAL": "FATA"}[e.level()]
		line := fmt.Sprintf("\x1b[%sm%s\x1b[0m[%04d] %-44s \x1b[%smcomponent\x1b[0m=api", color, lv, e.seq/3, e.message(), color)
		if e.seq%400 == 0 {
			return []string{fmt.Sprintf("section_start:%d:step_%d\r\x1b[0K\x1b[0K\x1b[36;1mExecuting \"step_script\" stage of the job script\x1b[0;m", e.at.Unix(), e.seq), "\x1b[32;1m$ ./bin/server --once\x1b[0;m", line}
		}
		return []string{line}
	}},
	{name: "multi-line messages", whole: true, render: func(e zooEvent, o zooOpts) []string {
		head := fmt.Sprintf("%s %s [%s] %s", o.ts(e.at, "2006-01-02 15:04:05,000"), e.level(), tplPick(e, "db", "web", "auth"), e.message())
		if e.t.trace {
			return append([]string{head + ":"}, "query was:", "  INSERT INTO blocks (id, path)", "  VALUES ($1, $2)", "hint: free some space")
		}
		// A call site that logs a multi-line message always does.
		if tplPick(e, "details", "", "") != "" {
			return []string{head, "  details: retry=" + strconv.Itoa(e.seq%5), "  node=" + o.host(e.seq)}
		}
		return []string{head}
	}},
	// Application loggers whose shapes the formats above do not have.
	{name: "Go log", render: func(e zooEvent, o zooOpts) []string {
		return withTrace(e, fmt.Sprintf("%s %s:%d: %s", o.ts(e.at, "2006/01/02 15:04:05"), tplPick(e, "main.go", "server.go", "db.go"), 10+len(e.t.msg)%300, e.message()), goTrace)
	}},
	{name: "Ruby Logger", render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("%s, [%s #%d]  %5s -- : %s", e.level()[:1], o.ts(e.at, "2006-01-02T15:04:05.000000"), 1000+e.seq%7, e.level(), e.message())}
	}},
	{name: "Heroku router", render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("%s app[web.%d]: %s", o.ts(e.at, "2006-01-02T15:04:05.000000+00:00"), 1+e.seq%3, e.message())}
	}},
	{name: "hclog", render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("%s [%s]  %s: %s", o.ts(e.at, "2006-01-02T15:04:05.000Z"), e.level(), tplPick(e, "agent", "agent.server.raft", "nomad.client"), e.message())}
	}},
	{name: "Java Date", render: func(e zooEvent, o zooOpts) []string {
		return withTrace(e, fmt.Sprintf("%s %s %s", o.ts(e.at, "Mon Jan 02 15:04:05 MST 2006"), e.level(), e.message()), javaTrace)
	}},
	{name: "Elixir Logger", render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("%s [%s] %s", o.ts(e.at, "15:04:05.000"), strings.ToLower(e.level()), e.message())}
	}},
	{name: "gunicorn", render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("[%s] [%d] [%s] %s", o.ts(e.at, "2006-01-02 15:04:05 -0700"), 100+e.seq%5, e.level(), e.message())}
	}},
	{name: "Tomcat", render: func(e zooEvent, o zooOpts) []string {
		return withTrace(e, fmt.Sprintf("%s %s [%s] %s %s", o.ts(e.at, "02-Jan-2006 15:04:05.000"), e.level(), tplPick(e, "main", "http-nio-8080-exec-3", "Catalina-utility-1"),
			tplPick(e, "org.apache.catalina.startup.Catalina.start", "org.apache.coyote.AbstractProtocol.init"), e.message()), javaTrace)
	}},
	{name: ".NET console", render: func(e zooEvent, o zooOpts) []string {
		// The message is on the indented line under "level: category[event id]":
		// both lines are the record, and the oracle's.
		lv := map[string]string{"DEBUG": "dbug", "INFO": "info", "WARN": "warn", "ERROR": "fail", "FATAL": "crit"}[e.level()]
		category := tplPick(e, "Microsoft.Hosting.Lifetime", "App.Worker", "Microsoft.EntityFrameworkCore.Database.Command")
		return []string{fmt.Sprintf("%s: %s[%d]\n      %s", lv, category, len(e.t.msg)%3, e.message())}
	}},
	{name: "epoch JSON", render: func(e zooEvent, o zooOpts) []string {
		msg, _ := jsonQuote(e.message())
		return []string{fmt.Sprintf(`{"level":"%s","ts":%d.%06d,"logger":"%s","msg":%s}`, strings.ToLower(e.level()), e.at.Unix(), e.at.Nanosecond()/1000, tplPick(e, "http.log", "tls", "admin"), msg)}
	}},
	{name: "epoch plain", render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("%d.%03d %s %s", e.at.Unix(), e.at.Nanosecond()/1e6, e.level(), e.message())}
	}},
	{name: "Python basicConfig", render: func(e zooEvent, o zooOpts) []string {
		lv := map[string]string{"DEBUG": "DEBUG", "INFO": "INFO", "WARN": "WARNING", "ERROR": "ERROR", "FATAL": "CRITICAL"}[e.level()]
		return []string{fmt.Sprintf("%s:%s:%s", lv, tplPick(e, "root", "werkzeug", "app.db"), e.message())}
	}},
	{name: "java.util.logging", render: func(e zooEvent, o zooOpts) []string {
		// Two lines a record: when and where, then "LEVEL: message".
		lv := map[string]string{"DEBUG": "FINE", "INFO": "INFO", "WARN": "WARNING", "ERROR": "SEVERE", "FATAL": "SEVERE"}[e.level()]
		return withTrace(e, fmt.Sprintf("%s %s %s\n%s: %s", o.ts(e.at, "Jan 02, 2006 3:04:05 PM"), tplPick(e, "com.acme.Server", "com.acme.db.Pool"),
			tplPick(e, "start", "handle", "close"), lv, e.message()), javaTrace)
	}},
	{name: "AWS Lambda", render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("%s\t%08x-%04x-4%03x-a%03x-%012x\t%s\t%s", o.ts(e.at, "2006-01-02T15:04:05.000Z"), e.seq*7919, e.seq%65536, e.seq%4096, e.seq%4096, e.seq*104729, e.level(), e.message())}
	}},
	{name: "GCP JSON", render: func(e zooEvent, o zooOpts) []string {
		msg, _ := jsonQuote(e.message())
		return []string{fmt.Sprintf(`{"insertId":"%x","severity":"%s","textPayload":%s,"timestamp":"%s","resource":{"type":"k8s_container","labels":{"pod_name":"api-%d"}}}`,
			e.seq*2654435761, e.level(), msg, o.ts(e.at, "2006-01-02T15:04:05.000000Z"), e.seq%5)}
	}},
	{name: "ECS JSON", render: func(e zooEvent, o zooOpts) []string {
		msg, _ := jsonQuote(e.message())
		return []string{fmt.Sprintf(`{"@timestamp":"%s","log.level":"%s","message":%s,"ecs.version":"1.6.0","service.name":"api","process.thread.name":"worker-%d"}`,
			o.ts(e.at, "2006-01-02T15:04:05.000Z"), strings.ToLower(e.level()), msg, e.seq%8)}
	}},
	{name: "Serilog CLEF", render: func(e zooEvent, o zooOpts) []string {
		msg, _ := jsonQuote(e.message())
		return []string{fmt.Sprintf(`{"@t":"%s","@l":"%s","@m":%s,"@i":"%08x","SourceContext":"App.Worker"}`, o.ts(e.at, "2006-01-02T15:04:05.0000000Z"), e.level(), msg, len(e.t.msg)*2654435761%0xffffffff)}
	}},
	// A value written twice in one record: in the message and again in a
	// context map (PHP's Monolog line format), or in a rendered message
	// beside the properties it was rendered from (.NET's JSON loggers).
	{name: "Monolog context", render: func(e zooEvent, o zooOpts) []string {
		ctx := "[]"
		if len(e.values) > 0 {
			v, _ := jsonQuote(e.values[0])
			ctx = fmt.Sprintf(`{"%s":%s,"host":"%s"}`, e.t.slots[0].key, v, o.host(e.seq))
		}
		return []string{fmt.Sprintf("[%s] %s.%s: %s %s []", o.ts(e.at, "2006-01-02T15:04:05.000000-07:00"), tplPick(e, "app", "request", "security"), e.level(), e.message(), ctx)}
	}},
	{name: "rendered message and properties", render: func(e zooEvent, o zooOpts) []string {
		tpl, _ := jsonQuote(e.t.template())
		msg, _ := jsonQuote(e.message())
		props := []string{fmt.Sprintf(`"MachineName":"%s"`, o.host(e.seq))}
		for i, v := range e.values {
			q, _ := jsonQuote(v)
			props = append(props, fmt.Sprintf(`"%s":%s`, e.t.slots[i].key, q))
		}
		return []string{fmt.Sprintf(`{"Timestamp":"%s","Level":"%s","MessageTemplate":%s,"RenderedMessage":%s,"Properties":{%s}}`, o.ts(e.at, "2006-01-02T15:04:05.0000000Z07:00"), e.level(), tpl, msg, strings.Join(props, ","))}
	}},
	// A level right after a bracketed stamp, then a label: no chat.
	{name: "PHP-FPM", render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf(`[%s] %s: [pool www] child %d said into stderr: "%s"`, o.ts(e.at, "02-Jan-2006 15:04:05"), e.level(), 1000+o.id(e.seq)%500, e.message())}
	}},
	// No time stamp, a label per service: a multiplexed dev or CI log
	// (concurrently, turborepo, a Procfile runner).
	{name: "service labels", render: func(e zooEvent, o zooOpts) []string {
		if e.seq%2 == 0 {
			return []string{fmt.Sprintf("[%s] %s", []string{"web", "api", "jobs"}[e.seq/2%3], e.message())}
		}
		return []string{fmt.Sprintf("%s: %s", []string{"web", "api", "jobs"}[e.seq/2%3], e.message())}
	}},
	// macOS's unified log: thread ids in hex (0x1aaa spells a word), an
	// activity, a pid, a TTL, then process: (library) message.
	{name: "macOS unified", render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("%s 0x%-6x %-11s 0x0                  %-6d 0    %s: (%s) %s", o.ts(e.at, "2006-01-02 15:04:05.000000-0700"), 0x1a2b+o.id(e.seq)%300, tplPick(e, "Default", "Info", "Error"), 100+o.id(e.seq)%50, tplPick(e, "kernel", "mDNSResponder", "WindowServer"), tplPick(e, "AppleACPI", "libsystem"), e.message())}
	}},
	// Records written as indented fields, the message among them.
	{name: "journalctl verbose", whole: true, render: func(e zooEvent, o zooOpts) []string {
		pri := map[string]int{"DEBUG": 7, "INFO": 6, "WARN": 4, "ERROR": 3, "FATAL": 2}[e.level()]
		return []string{
			fmt.Sprintf("%s [s=4a1b2c3d;i=%x;b=9f8e7d6c;m=%x;t=%x;x=%x]", o.ts(e.at, "Mon 2006-01-02 15:04:05.000000 MST"), 0x1000+o.id(e.seq), e.seq*977, e.at.UnixMicro(), uint64(e.seq)*0x9E3779B97F4A7C15),
			"    _TRANSPORT=journal",
			fmt.Sprintf("    PRIORITY=%d", pri),
			fmt.Sprintf("    _PID=%d", 100+o.id(e.seq)%50),
			"    _HOSTNAME=" + o.host(e.seq),
			"    MESSAGE=" + e.message(),
		}
	}},
	{name: "YAML records", whole: true, render: func(e zooEvent, o zooOpts) []string {
		return []string{"- time: " + o.ts(e.at, time.RFC3339), "  level: " + e.level(), "  msg: " + e.message()}
	}},
	// Names from a pool that all recur: 24 users, 20 tables, each seen
	// some fifty times, beside a handful of one-word events.
	{name: "recurring pools", tpls: poolTemplates, render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("%s %-5s [%s] %s", o.ts(e.at, time.RFC3339Nano), e.level(), o.host(e.seq), e.message())}
	}},
	// Chinese messages: a name between two words, no blank around it.
	{name: "ideographs", tpls: ideographTemplates, render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("%s %-5s [%s] %s", o.ts(e.at, "2006-01-02 15:04:05.000"), e.level(), o.host(e.seq), e.message())}
	}},
	// Names in quotes of every kind, from pools.
	{name: "quoted names", tpls: quotedNameTemplates, render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("%s %-5s [%s] %s", o.ts(e.at, time.RFC3339Nano), e.level(), o.host(e.seq), e.message())}
	}},
	// A terminal's colors around the time, the level and the host.
	{name: "ANSI colors", render: func(e zooEvent, o zooOpts) []string {
		color := map[string]string{"DEBUG": "36", "INFO": "32", "WARN": "33", "ERROR": "31", "FATAL": "35"}[e.level()]
		return []string{fmt.Sprintf("\x1b[90m%s\x1b[0m \x1b[%sm%-5s\x1b[0m \x1b[1m%s\x1b[0m %s", o.ts(e.at, "15:04:05.000"), color, e.level(), o.host(e.seq), e.message())}
	}},
	// URL queries: '&' joins their pairs, whose values vary.
	{name: "URL queries", tpls: queryTemplates, render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("%s %-5s [%s] %s", o.ts(e.at, time.RFC3339Nano), e.level(), o.host(e.seq), e.message())}
	}},
	{name: "syslog with addresses", tpls: netTemplates, render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("%s %s %s[%d]: %s", o.ts(e.at, "Jan _2 15:04:05"), o.host(e.seq), tplPick(e, "kernel", "kubelet", "api"), 100+e.seq%50, e.message())}
	}},
	{name: "values: plain ISO", tpls: valueTemplates, render: func(e zooEvent, o zooOpts) []string {
		return withTrace(e, fmt.Sprintf("%s %-5s %s", o.ts(e.at, time.RFC3339Nano), e.level(), e.message()), goTrace)
	}},
	{name: "values: bracketed", tpls: valueTemplates, render: func(e zooEvent, o zooOpts) []string {
		return []string{fmt.Sprintf("%s [%s] %s", o.ts(e.at, "2006-01-02 15:04:05.000"), e.level(), e.message())}
	}},
	{name: "values: JSON", tpls: valueTemplates, render: func(e zooEvent, o zooOpts) []string {
		msg, _ := jsonQuote(e.message())
		return []string{fmt.Sprintf(`{"time":"%s","level":"%s","msg":%s,"host":"%s"}`, o.ts(e.at, time.RFC3339Nano), strings.ToLower(e.level()), msg, o.host(e.seq))}
	}},
	{name: "values: logfmt", tpls: valueTemplates, render: func(e zooEvent, o zooOpts) []string {
		msg, _ := jsonQuote(e.message())
		return []string{fmt.Sprintf(`time=%s level=%s msg=%s host=%s`, o.ts(e.at, time.RFC3339Nano), strings.ToLower(e.level()), msg, o.host(e.seq))}
	}},
	// JSON records with a nested object and an array whose length varies
	// from record to record (tags, ids).
	{name: "JSON nested", render: func(e zooEvent, o zooOpts) []string {
		msg, _ := jsonQuote(e.message())
		tags := []string{`["edge"]`, `["edge","canary"]`, `[]`, `["edge","canary","eu-west-1"]`}[e.seq*7%4]
		return []string{fmt.Sprintf(`{"ts":"%s","level":"%s","msg":%s,"http":{"method":"GET","status":%d},"tags":%s}`, o.ts(e.at, time.RFC3339Nano), strings.ToLower(e.level()), msg, 200+e.seq%3, tags)}
	}},
	// klog's structured form: the message in quotes after the header,
	// then key="value" pairs. The quotes are syntax: a one-word message
	// ("openDrawer") names its event.
	{name: "klog structured", render: func(e zooEvent, o zooOpts) []string {
		msg, _ := jsonQuote(e.message())
		return withTrace(e, fmt.Sprintf(`%s%s %7d %s:%d] %s pod="default/web-7d9f8b6c5-%05d" node=%q`, e.level()[:1], o.ts(e.at, "0102 15:04:05.000000"), 1+e.seq%3, tplPick(e, "controller.go", "reconciler.go"), 100+len(e.t.msg), msg, e.seq%40, o.host(e.seq)), goTrace)
	}},
	// A tracing bridge (OpenTelemetry, Datadog) adds the correlation ids
	// of the active span to the records logged inside one only.
	{name: "trace ids: plain", render: func(e zooEvent, o zooOpts) []string {
		return withTrace(e, fmt.Sprintf("%s %-5s %s%s", o.ts(e.at, time.RFC3339Nano), e.level(), e.message(), zooSpan(e, " trace_id=%s span_id=%s")), goTrace)
	}},
	{name: "trace ids: JSON", render: func(e zooEvent, o zooOpts) []string {
		msg, _ := jsonQuote(e.message())
		return []string{fmt.Sprintf(`{"time":"%s","level":"%s","msg":%s%s}`, o.ts(e.at, time.RFC3339Nano), strings.ToLower(e.level()), msg, zooSpan(e, `,"trace_id":"%s","span_id":"%s"`))}
	}},
	{name: "trace ids: logfmt", render: func(e zooEvent, o zooOpts) []string {
		msg, _ := jsonQuote(e.message())
		return []string{fmt.Sprintf(`time=%s level=%s msg=%s%s`, o.ts(e.at, time.RFC3339Nano), strings.ToLower(e.level()), msg, zooSpan(e, " dd.trace_id=%s dd.span_id=%s"))}
	}},
	{name: "pino", render: func(e zooEvent, o zooOpts) []string {
		msg, _ := jsonQuote(e.message())
		lv := map[string]int{"DEBUG": 20, "INFO": 30, "WARN": 40, "ERROR": 50, "FATAL": 60}[e.level()]
		return []string{fmt.Sprintf(`{"level":%d,"time":%d,"pid":%d,"hostname":"%s","reqId":"req-%d","msg":%s}`, lv, e.at.UnixMilli(), 4000+e.seq%3, o.host(e.seq), e.seq, msg)}
	}},
}

// zooSpan renders a record's trace and span ids with format, for one
// record in three (those logged inside a span); the ids are hex of any
// length, as exporters trim or pad them.
func zooSpan(e zooEvent, format string) string {
	if e.seq%3 != 0 {
		return ""
	}
	return fmt.Sprintf(format, strconv.FormatUint(uint64(e.seq)*0x9E3779B97F4A7C15>>uint(e.seq%40), 16), strconv.FormatUint(uint64(e.seq)*2654435761%(1<<uint(8+e.seq%24)), 16))
}

func jsonQuote(s string) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

func (f zoo2Format) templates() []zooTemplate {
	if f.tpls != nil {
		return f.tpls
	}
	return eventTemplates
}

// zoo2Events generates n events over tpls: Zipf frequencies over the
// common templates, each alert once or twice.
func zoo2Events(tpls []zooTemplate, n int, seed uint64) []zooEvent {
	r := rand.New(rand.NewPCG(seed, 99))
	var common, rare []*zooTemplate
	for i := range tpls {
		if tpls[i].alert {
			rare = append(rare, &tpls[i])
		} else {
			common = append(common, &tpls[i])
		}
	}
	zipf := rand.NewZipf(r, 1.2, 1, uint64(len(common)-1))
	at := time.Date(2024, 3, 1, 9, 59, 0, 0, time.UTC)
	alertAt := map[int]*zooTemplate{}
	for i, t := range rare {
		for k := 0; k <= i%2; k++ {
			alertAt[n/10+r.IntN(n-n/10)] = t
		}
	}
	var out []zooEvent
	for seq := 0; seq < n; seq++ {
		t := common[zipf.Uint64()]
		if a, ok := alertAt[seq]; ok {
			t = a
		}
		at = at.Add(time.Duration(1+r.IntN(900)) * time.Millisecond)
		e := zooEvent{at: at, seq: seq, t: t}
		for _, s := range t.slots {
			e.values = append(e.values, s.gen(r))
		}
		out = append(out, e)
	}
	return out
}

// zoo2Render renders events; the templates, alerts and oracle (one real
// line per template) come with the text.
func zoo2Render(f zoo2Format, events []zooEvent, o zooOpts) (text string, templates, alerts []string, oracle int) {
	var b strings.Builder
	first := map[*zooTemplate]bool{}
	structure := map[string]bool{}
	for _, e := range events {
		lines := f.render(e, o)
		rec := 0 // the record's line; those after continue it
		if f.sections {
			// Lines before a record (a CI section's markers) are the
			// log's structure: one of each shape belongs in the oracle.
			rec = len(lines) - 1
			for _, l := range lines[:rec] {
				if k := baselineDigits.ReplaceAllString(l, "0"); !structure[k] {
					structure[k] = true
					oracle += len([]rune(l))
				}
			}
		}
		if !first[e.t] {
			first[e.t] = true
			oracle += len([]rune(lines[rec]))
			if f.whole {
				for _, l := range lines[rec+1:] {
					oracle += 1 + len([]rune(l))
				}
			}
			templates = append(templates, e.t.template())
			if e.t.alert {
				alerts = append(alerts, e.t.template())
			}
		}
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String(), templates, alerts, oracle
}

var baselineDigits = regexp.MustCompile(`[0-9]+`)

// baselineCompact is the ten-line script a user would try first: mask
// digit runs, keep the first line of each masked pattern.
func baselineCompact(text string) string {
	seen := map[string]bool{}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		k := baselineDigits.ReplaceAllString(l, "0")
		if seen[k] {
			continue
		}
		seen[k] = true
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// zooMeasure is one format measured: ours and the baseline's ratio and
// coverage.
type zooMeasure struct {
	ratio, baseRatio       float64
	cov, alertCov, baseCov float64
	oracleX                float64
	missing                []string
	out                    string
}

func measureZoo(t *testing.T, text string, templates, alerts []string, oracle int) zooMeasure {
	t.Helper()
	out, ratio := compactLog(t, text)
	base := baselineCompact(text)
	var m zooMeasure
	m.out, m.ratio = out, ratio
	m.baseRatio = float64(len([]rune(base))) / float64(len([]rune(text)))
	m.cov, m.missing = coverage(templates, out)
	var am []string
	m.alertCov, am = coverage(alerts, out)
	m.missing = append(m.missing, am...)
	m.baseCov, _ = coverage(templates, base)
	m.oracleX = float64(len([]rune(out))) / float64(oracle)
	return m
}

// check reports a measure that loses to the baseline on either axis, misses
// a template or an alert, or exceeds twice the oracle.
func (m zooMeasure) problems() []string {
	var p []string
	if m.cov < 1 || m.alertCov < 1 {
		p = append(p, fmt.Sprintf("coverage %.3f alerts %.3f, missing %q", m.cov, m.alertCov, m.missing))
	}
	if m.cov < m.baseCov {
		p = append(p, fmt.Sprintf("coverage %.3f below the baseline's %.3f", m.cov, m.baseCov))
	}
	if m.ratio > m.baseRatio {
		p = append(p, fmt.Sprintf("ratio %.4f above the baseline's %.4f", m.ratio, m.baseRatio))
	}
	if m.oracleX > 2 {
		p = append(p, fmt.Sprintf("%.2fx the one-line-per-template oracle", m.oracleX))
	}
	return p
}

// zooKnownGaps are formats that still lose, with the reason. The test
// logs them instead of failing, and fails when one is fixed so the list
// only shrinks.
var zooKnownGaps = map[string]string{}

// TestLogFormatZooBaseline: on every format of both zoos, the output keeps
// every template and alert, is no larger than the ten-line baseline's, and
// at most twice the oracle.
func TestLogFormatZooBaseline(t *testing.T) {
	type row struct {
		name string
		m    zooMeasure
	}
	var rows []row
	for i, f := range zooFormats {
		text, templates, alerts, oracle := zooDoc(f, 3000, uint64(i+1))
		rows = append(rows, row{f.name, measureZoo(t, text, templates, alerts, oracle)})
	}
	for i, f := range zoo2Formats {
		text, templates, alerts, oracle := zoo2Render(f, zoo2Events(f.templates(), 3000, uint64(100+i)), defaultZooOpts)
		rows = append(rows, row{f.name, measureZoo(t, text, templates, alerts, oracle)})
	}
	for _, r := range rows {
		p := r.m.problems()
		t.Logf("%-22s ratio %.4f baseline %.4f  coverage %.3f baseline %.3f  alerts %.3f  %.2fx oracle", r.name, r.m.ratio, r.m.baseRatio, r.m.cov, r.m.baseCov, r.m.alertCov, r.m.oracleX)
		gap, known := zooKnownGaps[r.name]
		switch {
		case len(p) > 0 && known:
			t.Logf("  known gap (%s): %s", gap, strings.Join(p, "; "))
		case len(p) > 0:
			t.Errorf("%s: %s\noutput:\n%s", r.name, strings.Join(p, "; "), clipZoo(r.m.out))
		case known:
			t.Errorf("%s: listed as a known gap but passes now; remove it from zooKnownGaps", r.name)
		}
	}
}

// zooMetamorphs vary what must not change a log's templates: line order
// within a short window, host names, the width of sequence ids, the time
// stamp layout.
var zooMetamorphs = []struct {
	name    string
	opts    zooOpts
	shuffle bool
}{
	{"shuffled within windows", defaultZooOpts, true},
	{"hosts renamed", zooOpts{hosts: []string{"ip-172-31-4-17", "worker-a", "storage.prod.example.net", "x"}, idBase: 1}, false},
	{"ids cross a width", zooOpts{hosts: defaultZooOpts.hosts, idBase: 99000}, false},
	{"other time layout", zooOpts{hosts: defaultZooOpts.hosts, idBase: 1, layout: time.RFC3339Nano}, false},
}

// TestLogFormatZooMetamorphic: none of zooMetamorphs changes template or
// alert coverage, and the ratio stays within 1.5x of the plain rendering.
func TestLogFormatZooMetamorphic(t *testing.T) {
	for i, f := range zoo2Formats {
		t.Run(f.name, func(t *testing.T) {
			events := zoo2Events(f.templates(), 2000, uint64(200+i))
			text, templates, alerts, oracle := zoo2Render(f, events, defaultZooOpts)
			plain := measureZoo(t, text, templates, alerts, oracle)
			for _, mm := range zooMetamorphs {
				ev := events
				if mm.shuffle {
					ev = append([]zooEvent(nil), events...)
					r := rand.New(rand.NewPCG(uint64(i), 5))
					for w := 0; w < len(ev); w += 10 {
						win := ev[w:min(w+10, len(ev))]
						r.Shuffle(len(win), func(a, b int) { win[a], win[b] = win[b], win[a] })
					}
				}
				text, templates, alerts, oracle := zoo2Render(f, ev, mm.opts)
				m := measureZoo(t, text, templates, alerts, oracle)
				gap, known := zooKnownGaps[f.name+"/"+mm.name]
				if known {
					if m.cov == 1 && m.alertCov == 1 && m.ratio <= 1.5*plain.ratio {
						t.Errorf("%s: listed as a known gap but passes now; remove it from zooKnownGaps", mm.name)
					}
					t.Logf("%s: known gap (%s): ratio %.4f, plain %.4f", mm.name, gap, m.ratio, plain.ratio)
					continue
				}
				if m.cov < 1 || m.alertCov < 1 {
					t.Errorf("%s: coverage %.3f alerts %.3f, missing %q\noutput:\n%s", mm.name, m.cov, m.alertCov, m.missing, clipZoo(m.out))
				}
				if m.ratio > 1.5*plain.ratio {
					t.Errorf("%s: ratio %.4f, over 1.5x the plain rendering's %.4f\noutput:\n%s", mm.name, m.ratio, plain.ratio, clipZoo(m.out))
				}
			}
		})
	}
}

// TestBaselineCompact: the baseline keeps one line per digit-masked
// pattern, the first.
func TestBaselineCompact(t *testing.T) {
	got := baselineCompact("a 1\nb 2\na 33\nb 4x\n")
	if got != "a 1\nb 2\nb 4x\n" {
		t.Fatalf("got %q", got)
	}
}

// TestLoghubBeatsBaseline: on every LogHub sample the output keeps at
// least the templates the ten-line baseline keeps, in at most 1.15x its
// characters. The slack is the slot summaries ("[×305; 20:10:45–20:11:11;
// task: 0–1354]") issue 12 asks for: on a log of few templates seen many
// times (Spark, Hadoop) they cost more than the baseline saves.
func TestLoghubBeatsBaseline(t *testing.T) {
	for _, s := range readLoghub(t) {
		text := strings.Join(s.lines, "\n") + "\n"
		templates := distinct(s.template, nil)
		out, ratio := compactLog(t, text)
		base := baselineCompact(text)
		baseRatio := float64(len([]rune(base))) / float64(len([]rune(text)))
		cov, missing := coverage(templates, out)
		baseCov, _ := coverage(templates, base)
		t.Logf("%-10s ratio %.4f baseline %.4f  coverage %.3f baseline %.3f", s.name, ratio, baseRatio, cov, baseCov)
		if cov < baseCov {
			t.Errorf("%s: coverage %.3f below the baseline's %.3f, missing %q", s.name, cov, baseCov, missing)
		}
		if ratio > 1.15*baseRatio {
			t.Errorf("%s: ratio %.4f above 1.15x the baseline's %.4f", s.name, ratio, baseRatio)
		}
	}
}

// TestAccessLogOneWordRoutes: in an access log, each endpoint is an event,
// also when its route is one word (/login, /health, /robots.txt): every
// endpoint keeps a line of its own, rare ones included, however the query
// strings, clients and sizes vary.
func TestAccessLogOneWordRoutes(t *testing.T) {
	common := []string{"/health", "/login", "/logout", "/search", "/cart", "/checkout", "/metrics", "/favicon.ico", "/robots.txt", "/signup", "/webhook", "/status"}
	rare := []string{"/debug", "/.env"}
	r := rand.New(rand.NewPCG(11, 12))
	zipf := rand.NewZipf(r, 1.3, 1, uint64(len(common)-1))
	at := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	var b strings.Builder
	for i := range 3000 {
		route := common[zipf.Uint64()]
		switch i {
		case 1200:
			route = rare[0]
		case 2500:
			route = rare[1]
		}
		at = at.Add(time.Duration(1+r.IntN(500)) * time.Millisecond)
		fmt.Fprintf(&b, "10.%d.%d.%d - - [%s] \"GET %s?session=%08x&t=%d HTTP/1.1\" %d %d \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\"\n",
			r.IntN(256), r.IntN(256), r.IntN(256), at.Format("02/Jan/2006:15:04:05 -0700"), route, r.Uint32(), at.Unix(), []int{200, 200, 304, 404}[r.IntN(4)], 100+r.IntN(9000))
	}
	out, ratio := compactLog(t, b.String())
	for _, route := range append(common, rare...) {
		if !strings.Contains(out, "\"GET "+route+"?") {
			t.Errorf("endpoint %s has no line of its own", route)
		}
	}
	if lines := strings.Count(out, "\n"); lines > 2*(len(common)+len(rare)) {
		t.Errorf("%d lines for %d endpoints", lines, len(common)+len(rare))
	}
	if t.Failed() {
		t.Logf("ratio %.4f, output:\n%s", ratio, clipZoo(out))
	}
}

// TestAccessLogClientsVary: in the combined log format, the referrer and
// the user agent come with every request: each route keeps one line per
// outcome however many clients call it, and a rare server error keeps a
// line of its own.
func TestAccessLogClientsVary(t *testing.T) {
	agents := []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
		"Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
		"curl/8.4.0", "Go-http-client/1.1", "python-requests/2.31.0", "kube-probe/1.28",
		"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
	}
	referrers := []string{"-", "https://www.example.com/", "https://www.example.com/search?q=shoes", "https://example.com/cart?step=2"}
	routes := []string{"/api/orders/%d", "/api/users/%d/profile", "/health", "/login", "/search?q=item%d", "/static/app.%x.js"}
	r := rand.New(rand.NewPCG(21, 22))
	zipf := rand.NewZipf(r, 1.2, 1, uint64(len(agents)-1))
	at := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	var b strings.Builder
	for i := range 3000 {
		at = at.Add(time.Duration(1+r.IntN(400)) * time.Millisecond)
		route, status := routes[r.IntN(len(routes))], []int{200, 200, 200, 304}[r.IntN(4)]
		if strings.Contains(route, "%") {
			route = fmt.Sprintf(route, 1+r.IntN(100000))
		}
		if i == 1777 {
			route, status = "/api/orders/77", 503
		}
		fmt.Fprintf(&b, "10.%d.%d.%d - - [%s] \"GET %s HTTP/1.1\" %d %d \"%s\" \"%s\"\n", r.IntN(256), r.IntN(256), 1+r.IntN(254),
			at.Format("02/Jan/2006:15:04:05 -0700"), route, status, 100+r.IntN(50000), referrers[r.IntN(len(referrers))], agents[zipf.Uint64()])
	}
	out, ratio := compactLog(t, b.String())
	for _, want := range []string{"GET /api/orders/", "GET /api/users/", "GET /health ", "GET /login ", "GET /search?", "GET /static/", "GET /api/orders/77 HTTP/1.1\" 503 "} {
		if !strings.Contains(out, want) {
			t.Errorf("no line for %q", want)
		}
	}
	if lines := strings.Count(out, "\n"); lines > 2*len(routes)+1 {
		t.Errorf("%d lines for %d routes: clients or referrers make templates", lines, len(routes))
	}
	if t.Failed() {
		t.Logf("ratio %.4f, output:\n%s", ratio, clipZoo(out))
	}
}
