import { describe, expect, it } from "vitest";
import { addressLimitKey } from "./client-address";

describe("addressLimitKey", () => {
  it.each([
    ["192.0.2.7", "192.0.2.7"],
    ["::ffff:192.0.2.7", "192.0.2.7"],
    ["2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:db8:1:2:ffff:eeee:dddd:cccc", "2001:db8:1:2::/64"],
    ["2001:0DB8:0001:0002:0000:0000:0000:0001", "2001:db8:1:2::/64"],
    ["2001:db8:1:3::1", "2001:db8:1:3::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["", "unknown"],
    ["not-an-ip", "not-an-ip"],
  ])("%s -> %s", (ip, key) => expect(addressLimitKey(ip)).toBe(key));

  it("puts every address of one /64 under one key, and a neighbouring /64 under another", () => {
    const keys = new Set(Array.from({ length: 50 }, (_, i) => addressLimitKey(`2001:db8:aa:bb:${i.toString(16)}::${(i * 7).toString(16)}`)));
    expect([...keys]).toEqual(["2001:db8:aa:bb::/64"]);
    expect(addressLimitKey("2001:db8:aa:bc::1")).not.toBe(addressLimitKey("2001:db8:aa:bb::1"));
  });
});
