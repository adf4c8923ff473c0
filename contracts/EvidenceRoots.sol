// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/**
 * @title EvidenceRoots
 * @notice Tollgate's daily roots (docs/ATTESTATIONS.md "The daily root"): once per UTC day (`day` =
 *         days since 1970-01-01 UTC) the owner writes the Merkle root of that day's evidence-bundle
 *         hashes and how many leaves it has. A day's root is written once and never changed.
 */
contract EvidenceRoots is Ownable {
    struct Entry {
        bytes32 root;
        uint32 leaves;
    }

    mapping(uint32 => Entry) private _entries;

    event RootPublished(uint32 indexed day, bytes32 root, uint32 leaves);

    /// The day already has a root.
    error DayAlreadyPublished(uint32 day, bytes32 root);
    /// A zero root or a tree without leaves commits to nothing.
    error EmptyRoot(uint32 day);

    constructor(address initialOwner) Ownable(initialOwner) {}

    function publish(uint32 day, bytes32 root, uint32 leaves) external onlyOwner {
        if (root == bytes32(0) || leaves == 0) revert EmptyRoot(day);
        Entry storage e = _entries[day];
        if (e.root != bytes32(0)) revert DayAlreadyPublished(day, e.root);
        e.root = root;
        e.leaves = leaves;
        emit RootPublished(day, root, leaves);
    }

    /// The day's root, or zero when none was published.
    function rootOf(uint32 day) external view returns (bytes32) {
        return _entries[day].root;
    }

    /// How many leaves the day's tree has, or zero when none was published.
    function leavesOf(uint32 day) external view returns (uint32) {
        return _entries[day].leaves;
    }
}
