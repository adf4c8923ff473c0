import { describe, expect, it } from "vitest";
import { classifyAddress } from "./classify-address";

describe("classifyAddress refuses everything that is not public unicast", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.255", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["0.255.255.255", "thisNetwork"],
    ["10.0.0.0", "private"],
    ["10.255.255.255", "private"],
    ["172.16.0.0", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.0", "private"],
    ["192.168.255.255", "private"],
    ["100.64.0.0", "carrierGradeNat"],
    ["100.127.255.255", "carrierGradeNat"],
    ["169.254.0.1", "linkLocal"],
    ["169.254.169.254", "linkLocal(cloudMetadata)"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.255", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.0", "reserved"],
    ["192.0.2.0", "documentation"],
    ["198.51.100.255", "documentation"],
    ["203.0.113.1", "documentation"],
    ["198.18.0.0", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["192.0.0.0", "ietfProtocolAssignments"],
    ["192.0.0.255", "ietfProtocolAssignments"],
    ["192.88.99.1", "6to4Relay"],
    // non-canonical encodings of IPv4 are parsed, not waved through
    ["2130706433", "loopback"],
    ["0177.0.0.1", "loopback"],
    ["0x7f000001", "loopback"],
    ["127.1", "loopback"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["[::1]", "loopback"],
    ["::ffff:127.0.0.1", "ipv4Mapped(loopback)"],
    ["::ffff:7f00:1", "ipv4Mapped(loopback)"],
    ["::ffff:169.254.169.254", "ipv4Mapped(linkLocal(cloudMetadata))"],
    ["::ffff:8.8.8.8", "ipv4Mapped(unicast)"],
    ["::127.0.0.1", "ipv4Compatible"],
    ["fe80::1", "linkLocal"],
    ["fe80::1%eth0", "linkLocal"],
    ["febf:ffff::1", "linkLocal"],
    ["fc00::", "uniqueLocal"],
    ["fd00:ec2::254", "uniqueLocal"],
    ["fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "uniqueLocal"],
    ["fec0::1", "siteLocal"],
    ["ff02::1", "multicast"],
    ["ff0e::1", "multicast"],
    ["64:ff9b::7f00:1", "nat64"],
    ["64:ff9b::8.8.8.8", "nat64"],
    ["64:ff9b:1::1", "nat64Local"],
    ["2002:7f00:1::", "6to4"],
    ["2002:ffff::1", "6to4"],
    ["2001::1", "teredo"],
    ["2001:0:ffff::1", "teredo"],
    ["2001:2::1", "ietfProtocolAssignments"],
    ["2001:1ff:ffff::1", "ietfProtocolAssignments"],
    ["2001:db8::1", "documentation"],
    ["2001:db8:ffff::1", "documentation"],
    ["3fff::1", "documentation"],
    ["100::1", "discard"],
    ["4000::1", "reserved"],
    ["1::1", "reserved"],
  ])("%s is %s", (ip, range) => {
    expect(classifyAddress(ip)).toEqual({ allowed: false, range });
  });

  it.each(["", "localhost", "1.2.3.4.5", "256.0.0.1", "::g", "example.com", "1.2.3.4 "])("%j is invalid", (ip) => {
    expect(classifyAddress(ip)).toEqual({ allowed: false, range: "invalid" });
  });
});

describe("boundary addresses just outside each IPv4 range are allowed", () => {
  it.each([
    "9.255.255.255", "11.0.0.0", // 10/8
    "172.15.255.255", "172.32.0.0", // 172.16/12
    "192.167.255.255", "192.169.0.0", // 192.168/16
    "100.63.255.255", "100.128.0.0", // 100.64/10
    "169.253.255.255", "169.255.0.0", // 169.254/16
    "126.255.255.255", "128.0.0.0", // 127/8
    "1.0.0.0", // 0/8
    "223.255.255.255", // 224/4
    "198.17.255.255", "198.20.0.0", // 198.18/15
    "192.0.1.255", "192.0.3.0", // 192.0.0/24 and 192.0.2/24
    "198.51.99.255", "198.51.101.0", // 198.51.100/24
    "203.0.112.255", "203.0.114.0", // 203.0.113/24
    "192.88.98.255", "192.88.100.0", // 192.88.99/24
    "8.8.8.8", "1.1.1.1",
  ])("%s", (ip) => {
    expect(classifyAddress(ip)).toEqual({ allowed: true, range: "unicast" });
  });
});

describe("IPv6 boundaries", () => {
  it.each([
    "2001:200::1", // just past 2001::/23
    "2001:db7:ffff:ffff::1", "2001:db9::1", // either side of 2001:db8::/32
    "2001:ffff:ffff::1", "2003::1", // either side of 2002::/16
    "2001:4860:4860::8888", "2606:4700:4700::1111",
    "3ffe:ffff::1", "3fff:1000::1", // either side of 3fff::/20
    "2000::1", "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", // the edges of 2000::/3
  ])("%s is public unicast", (ip) => {
    expect(classifyAddress(ip)).toEqual({ allowed: true, range: "unicast" });
  });

  // Just outside fc00::/7 and fe80::/10 is not unique-local or link-local — but it is not global
  // unicast either (outside 2000::/3, IANA-reserved), and the policy is an allow-list.
  it.each([
    ["fbff:ffff::1", "uniqueLocal"],
    ["fe00::1", "uniqueLocal"],
    ["fe7f::1", "linkLocal"],
    ["64:ff9b:0:0:1::", "nat64"],
    ["1fff:ffff::1", "6to4"],
  ])("%s is outside %s and refused as reserved", (ip, notRange) => {
    const v = classifyAddress(ip);
    expect(v.range).not.toBe(notRange);
    expect(v).toEqual({ allowed: false, range: "reserved" });
  });
});
